import { describe, expect, it } from 'vitest';
import { InvalidRequest, InvalidToken } from '../../src/oauth/errors.js';
import type { UserRecord } from '../../src/oauth/store.js';
import { addressClaim, CLAIMS_SUPPORTED, SCOPE_CLAIMS, userClaims } from '../../src/oauth/openid/standard-claims.js';
import { presentedAccessToken } from '../../src/oauth/openid/userinfo.js';
import { ALICE, ALICE_PROFILE_CLAIMS, NO_CLAIMS } from '../helpers/user-claims.js';

// OpenID Connect Core 1.0 sections 5.1, 5.3.2 and 5.4: which claims UserInfo returns for which scopes.

const updatedAt = new Date(Date.UTC(2026, 10, 25, 12, 0, 0));

const blankUser: UserRecord = {
  id: 1,
  username: 'alice',
  passwordHash: 'x',
  createdAt: updatedAt,
  updatedAt,
  subject: 'subject-1',
  disabledAt: null,
  profileUpdatedAt: updatedAt,
  mfa: 'optional',
  ...NO_CLAIMS,
  emailVerified: true,
  phoneNumberVerified: true,
};

// Alice with her verified flags the other way round, and an address member Core 5.1.1 does not know.
const fullUser: UserRecord = {
  ...blankUser,
  ...ALICE,
  emailVerified: false,
  phoneNumberVerified: true,
  address: JSON.stringify({ street_address: '1 Christ Church', locality: 'Oxford', country: 'UK', extra: 'dropped' }),
};

const epoch = updatedAt.getTime() / 1000;

describe('userClaims', () => {
  it('returns sub alone (the subject, never the user name) for openid without other scopes', () => {
    expect(userClaims(fullUser, ['openid'])).toEqual({ sub: 'subject-1' });
  });

  it('profile: the Core 5.4 profile claims, updated_at in epoch seconds', () => {
    expect(userClaims(fullUser, ['openid', 'profile'])).toEqual({ sub: 'subject-1', ...ALICE_PROFILE_CLAIMS, updated_at: epoch });
  });

  it('email, address and phone give only their own claims, the booleans as booleans', () => {
    expect(userClaims(fullUser, ['openid', 'email'])).toEqual({ sub: 'subject-1', email: 'alice@example.com', email_verified: false });
    expect(userClaims(fullUser, ['openid', 'address'])).toEqual({
      sub: 'subject-1',
      address: { street_address: '1 Christ Church', locality: 'Oxford', country: 'UK' },
    });
    expect(userClaims(fullUser, ['openid', 'phone'])).toEqual({
      sub: 'subject-1',
      phone_number: '+44 1865 000000',
      phone_number_verified: true,
    });
  });

  it('all scopes together give every claim of SCOPE_CLAIMS, whatever the scope order', () => {
    const claims = userClaims(fullUser, ['phone', 'address', 'email', 'profile', 'openid']);
    expect(Object.keys(claims).sort()).toEqual([...CLAIMS_SUPPORTED].sort());
  });

  it('omits claims without a value (Core 5.3.2: absent, not null), and the verified flags without their value', () => {
    expect(userClaims(blankUser, ['openid', 'profile', 'email', 'address', 'phone'])).toEqual({ sub: 'subject-1', updated_at: epoch });
    const emptyStrings = { ...blankUser, name: '', email: '', phoneNumber: '' };
    expect(userClaims(emptyStrings, ['openid', 'profile', 'email', 'phone'])).toEqual({ sub: 'subject-1', updated_at: epoch });
  });

  it('SCOPE_CLAIMS follows Core 5.4; CLAIMS_SUPPORTED is sub and all of them', () => {
    expect(Object.keys(SCOPE_CLAIMS)).toEqual(['profile', 'email', 'address', 'phone']);
    expect(SCOPE_CLAIMS.profile).toHaveLength(14);
    expect(CLAIMS_SUPPORTED).toHaveLength(1 + 14 + 2 + 1 + 2);
  });

  it('ignores scopes that name no claims', () => {
    expect(userClaims(fullUser, ['openid', 'read', 'offline_access'])).toEqual({ sub: 'subject-1' });
  });
});

describe('addressClaim', () => {
  it('keeps only the Core 5.1.1 string members', () => {
    const stored = JSON.stringify({ formatted: 'A\nB', postal_code: 12345, region: '', country: 'FR', locality: null });
    expect(addressClaim(stored)).toEqual({ formatted: 'A\nB', country: 'FR' });
  });

  it('gives no claim for corrupt or empty text, JSON that is not an object, or an object without members', () => {
    for (const stored of [null, '', '   ', '{not json', '"a string"', '[1,2]', 'null', '42', '{}', '{"street":"x"}']) {
      expect(addressClaim(stored)).toBeNull();
    }
    expect(userClaims({ ...fullUser, address: '{"street_address":' }, ['openid', 'address'])).toEqual({ sub: 'subject-1' });
  });
});

describe('presentedAccessToken (RFC 6750 section 2)', () => {
  it('reads a Bearer header (case-insensitive scheme) or a body parameter', () => {
    expect(presentedAccessToken('Bearer abc.DEF-_~+/=', undefined)).toBe('abc.DEF-_~+/=');
    expect(presentedAccessToken('bearer   abc', undefined)).toBe('abc');
    expect(presentedAccessToken(undefined, 'abc')).toBe('abc');
  });

  it('no token: no header, another scheme, a bare "Bearer", a blank body parameter', () => {
    for (const header of [undefined, '', 'Basic YTpi', 'Bearer', 'Bearer  ']) expect(presentedAccessToken(header, undefined)).toBeNull();
    expect(presentedAccessToken(undefined, '')).toBeNull();
  });

  it('a Bearer credential that is not one b64token is an invalid token', () => {
    expect(() => presentedAccessToken('Bearer a b', undefined)).toThrow(InvalidToken);
    expect(() => presentedAccessToken('Bearer a"b', undefined)).toThrow(InvalidToken);
  });

  it('a token in both the header and the body is invalid_request', () => {
    expect(() => presentedAccessToken('Bearer abc', 'abc')).toThrow(InvalidRequest);
  });
});
