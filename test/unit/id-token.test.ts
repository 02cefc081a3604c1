import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { halfHash, idTokenClaims } from '../../src/oauth/openid/id-token.js';

// OpenID Connect Core 1.0 sections 2 and 3.1.3.6 (issue 16: the claims the code exchange will sign).
describe('ID token claims', () => {
  it('c_hash of Core appendix A.4: the left half of SHA-256, base64url', () => {
    expect(halfHash('Qcb0Orv1zh30vL1MPRsbm-diHiMwcLyZvn1arpZv-Jxf_11jnpEX3Tgfvk', 'RS256')).toBe('LDktKdoQak3Pk0cnXxCltA');
    expect(halfHash('Qcb0Orv1zh30vL1MPRsbm-diHiMwcLyZvn1arpZv-Jxf_11jnpEX3Tgfvk', 'ES256')).toBe('LDktKdoQak3Pk0cnXxCltA');
  });

  it('EdDSA (Ed25519) hashes with SHA-512: 32 octets of 64', () => {
    const expected = createHash('sha512').update('token').digest().subarray(0, 32).toString('base64url');
    expect(halfHash('token', 'EdDSA')).toBe(expected);
  });

  it('carries iss, sub, aud, azp, iat and exp, and the optional claims only when known', () => {
    const now = new Date(Date.UTC(2026, 0, 1));
    const base = { issuer: 'https://id.example', subject: '42', clientId: 'app', now, lifetimeSeconds: 3600, alg: 'RS256' as const };
    const iat = now.getTime() / 1000;
    expect(idTokenClaims(base)).toEqual({ iss: 'https://id.example', sub: '42', aud: 'app', azp: 'app', iat, exp: iat + 3600 });
    const full = idTokenClaims({
      ...base,
      authTime: new Date(now.getTime() - 60_000),
      nonce: ' n-0S6_WzA2Mj ',
      accessToken: 'access',
      code: 'code',
      sessionId: 'sid-1',
      amr: ['pwd'],
    });
    expect(full).toMatchObject({
      auth_time: iat - 60,
      nonce: ' n-0S6_WzA2Mj ',
      at_hash: halfHash('access', 'RS256'),
      c_hash: halfHash('code', 'RS256'),
      sid: 'sid-1',
      amr: ['pwd'],
    });
  });
});
