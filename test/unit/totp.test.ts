import { generate } from 'otplib';
import { describe, expect, it } from 'vitest';
import { newTotpSecret, totpStep, totpUri } from '../../src/oauth/second-factor/totp.js';

// RFC 6238 codes as a person types them, and the otpauth:// URI (Key URI Format) an authenticator app reads.

const NOW = new Date('2026-11-29T12:00:00Z');
const codeAt = (secret: string, at: Date) => generate({ secret, epoch: Math.floor(at.getTime() / 1000) });

describe('TOTP', () => {
  it('a code typed as apps show it, with a space or a dash inside or spaces around, is the same code', async () => {
    const secret = newTotpSecret();
    const code = await codeAt(secret, NOW);
    const step = await totpStep(secret, code, NOW);
    expect(step).not.toBeNull();
    for (const typed of [
      `${code.slice(0, 3)} ${code.slice(3)}`,
      `${code.slice(0, 3)}-${code.slice(3)}`,
      ` ${code} `,
      `${code.slice(0, 3)}\u00a0${code.slice(3)}`,
    ])
      expect(await totpStep(secret, typed, NOW)).toBe(step);
  });

  it('anything but six digits is no code', async () => {
    const secret = newTotpSecret();
    const code = await codeAt(secret, NOW);
    for (const typed of [code.slice(0, 5), `${code}1`, `${code.slice(0, 5)}x`, '', '   '])
      expect(await totpStep(secret, typed, NOW)).toBeNull();
  });

  it('Key URI Format: neither the issuer nor the account name has a colon', () => {
    const uri = new URL(totpUri('localhost', 'carol', 'JBSWY3DPEHPK3PXP'));
    expect(uri.href).toMatch(/^otpauth:\/\/totp\/localhost:carol\?/);
    expect(uri.searchParams.get('issuer')).toBe('localhost');
    const odd = new URL(totpUri('[::1]', 'dom:carol', 'JBSWY3DPEHPK3PXP'));
    const label = decodeURIComponent(odd.pathname.replace(/^\/+(totp\/)?/, ''));
    expect(label.split(':')).toEqual(['[--1]', 'dom-carol']);
    expect(odd.searchParams.get('issuer')).toBe('[--1]');
  });
});
