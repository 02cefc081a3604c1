import { describe, expect, it } from 'vitest';
import {
  activeSigningKey,
  jwksMaxAge,
  keysThatSign,
  plannedSuccessor,
  publishedKeys,
  rotatedByHand,
  type SigningKeyRecord,
  type SigningKeySettings,
} from '../../src/oauth/keys/signing-keys.js';
import { signingKeySettings } from '../../src/oauth/keys/signing-key-service.js';

// The signing-key lifecycle (issue 16): published publishAheadSeconds before it signs, signs until a newer key
// starts (planned rotateAfterDays after its own start), published until what it signed has expired; retired:
// gone at once.

const settings: SigningKeySettings = { publishAheadSeconds: 3600, rotateAfterDays: 30, maxTokenLifetimeSeconds: 7200 };
const T0 = Date.UTC(2026, 0, 1);
const at = (seconds: number) => new Date(T0 + seconds * 1000);
const DAY = 86_400;

function key(kid: string, createdAt: number, signsFrom: number, overrides: Partial<SigningKeyRecord> = {}): SigningKeyRecord {
  return {
    kid,
    alg: 'RS256',
    publicJwk: { kid },
    createdAt: at(createdAt),
    signsFrom: at(signsFrom),
    rotateAt: at(signsFrom + 30 * DAY),
    retiredAt: null,
    ...overrides,
  };
}

describe('signing key lifecycle', () => {
  it('with no key at all, one is needed at once and signs from now', () => {
    expect(plannedSuccessor([], 'RS256', settings, at(0))).toEqual({ signsFrom: at(0), rotateAt: at(30 * DAY) });
  });

  it('no successor is planned before the publish-ahead window of the planned rotation', () => {
    const first = key('k1', 0, 0);
    expect(plannedSuccessor([first], 'RS256', settings, at(30 * DAY - 3601))).toBeNull();
    expect(plannedSuccessor([first], 'RS256', settings, at(30 * DAY - 3600))).toEqual({ signsFrom: at(30 * DAY), rotateAt: at(60 * DAY) });
  });

  it('a successor planned late still starts a full publish-ahead window after it is made; the old key signs meanwhile', () => {
    const first = key('k1', 0, 0);
    const late = at(31 * DAY);
    expect(plannedSuccessor([first], 'RS256', settings, late)).toEqual({ signsFrom: at(31 * DAY + 3600), rotateAt: at(61 * DAY + 3600) });
    expect(activeSigningKey([first], 'RS256', late)?.kid).toBe('k1');
  });

  it('a published successor does not sign before its start; then it does', () => {
    const keys = [key('k1', 0, 0), key('k2', 30 * DAY - 3600, 30 * DAY)];
    expect(activeSigningKey(keys, 'RS256', at(30 * DAY - 1))?.kid).toBe('k1');
    expect(activeSigningKey(keys, 'RS256', at(30 * DAY))?.kid).toBe('k2');
    expect(plannedSuccessor(keys, 'RS256', settings, at(30 * DAY - 1800))).toBeNull();
  });

  it('the JWKS publishes the successor ahead, and the old key until what it signed has expired', () => {
    const keys = [key('k1', 0, 0), key('k2', 30 * DAY - 3600, 30 * DAY)];
    const kids = (seconds: number) => publishedKeys(keys, settings, at(seconds)).map((k) => k.kid);
    expect(kids(30 * DAY - 3600)).toEqual(['k1', 'k2']);
    expect(kids(30 * DAY + 7199)).toEqual(['k1', 'k2']);
    expect(kids(30 * DAY + 7200)).toEqual(['k2']);
  });

  it('a retired key is neither published nor used, and a new key is needed at once when none signs', () => {
    const retired = key('k1', 0, 0, { retiredAt: at(10) });
    expect(publishedKeys([retired], settings, at(11))).toEqual([]);
    expect(activeSigningKey([retired], 'RS256', at(11))).toBeNull();
    expect(plannedSuccessor([retired], 'RS256', settings, at(11))).toEqual({ signsFrom: at(11), rotateAt: at(11 + 30 * DAY) });
  });

  it('keys of each algorithm rotate on their own', () => {
    const keys = [key('rsa', 0, 0), key('ec', 0, 0, { alg: 'ES256' })];
    expect(activeSigningKey(keys, 'ES256', at(1))?.kid).toBe('ec');
    expect(activeSigningKey(keys, 'EdDSA', at(1))).toBeNull();
    expect(plannedSuccessor(keys, 'EdDSA', settings, at(1))).toEqual({ signsFrom: at(1), rotateAt: at(1 + 30 * DAY) });
  });

  it('a key made by hand signs after the publish-ahead window', () => {
    expect(rotatedByHand(settings, at(100))).toEqual({ signsFrom: at(3700), rotateAt: at(3700 + 30 * DAY) });
  });

  it('the keys whose private key must decrypt at boot: the one signing per algorithm and those published ahead, not the old or retired ones (issue 31 item 6)', () => {
    const old = key('old', 0, 0);
    const current = key('current', 20 * DAY, 20 * DAY);
    const ahead = key('ahead', 40 * DAY, 41 * DAY);
    const retired = key('retired', 40 * DAY, 40 * DAY, { retiredAt: at(40 * DAY + 10) });
    const es256 = key('es256', 0, 0, { alg: 'ES256' });
    expect(keysThatSign([old, current, ahead, retired, es256], at(40 * DAY + 60)).map((k) => k.kid)).toEqual(['current', 'ahead', 'es256']);
    expect(keysThatSign([old, current, ahead], at(41 * DAY)).map((k) => k.kid)).toEqual(['ahead']);
  });

  it('the JWKS may be cached for half the publish-ahead window, at most a day', () => {
    expect(jwksMaxAge(settings)).toBe(1800);
    expect(jwksMaxAge({ ...settings, publishAheadSeconds: 10 * DAY })).toBe(DAY);
  });
});

describe('signingKeySettings: how long a key stays published after its successor starts', () => {
  const config = (accessTokenExpiresIn: number | null, idTokenExpiresIn = 3600) =>
    signingKeySettings({
      keys: { publishAheadSeconds: 3600, rotateAfterDays: 30 },
      accessTokenExpiresIn,
      openid: { idTokenExpiresIn },
    } as unknown as Parameters<typeof signingKeySettings>[0]).maxTokenLifetimeSeconds;

  it('at least a day: a resource may give its JWT access tokens that long, and so does a server whose tokens never expire', () => {
    expect(config(7200)).toBe(86_400);
    expect(config(null)).toBe(86_400);
    expect(config(2 * 86_400)).toBe(2 * 86_400);
    expect(config(600, 3 * 86_400)).toBe(3 * 86_400);
  });
});
