import { describe, expect, it } from 'vitest';
import { backchannelLogoutUriErrors, mayReachPrivateAddresses } from '../../src/oauth/openid/backchannel-logout/backchannel-logout-uri.js';
import { leaseUntil, retryWaitSeconds, settlementOf } from '../../src/oauth/openid/backchannel-logout/logout-delivery-policy.js';
import { BACKCHANNEL_LOGOUT_EVENT, logoutTokenClaims } from '../../src/oauth/openid/backchannel-logout/logout-token.js';

// OpenID Connect Back-Channel Logout 1.0: the pure rules. The logout token's claims (section 2.4), the URI a client may
// register (section 2.2) and whose it may reach, and when a failed delivery is tried again.

const NOW = new Date('2026-11-28T12:00:00Z');
const SETTINGS = { timeoutMs: 5000, maxAttempts: 4, retryAfterSeconds: 30 };

describe('Back-Channel Logout 1.0 section 2.4: logoutTokenClaims', () => {
  const input = { issuer: 'https://op.example', clientId: 'client-1', subject: 'sub-1', sessionId: 'sid-1', now: NOW };

  it('has iss, aud, iat, a two-minute exp, a jti, the events member, sub and sid, and never a nonce', () => {
    const claims = logoutTokenClaims(input);
    expect(claims).toEqual({
      iss: 'https://op.example',
      sub: 'sub-1',
      aud: 'client-1',
      iat: NOW.getTime() / 1000,
      exp: NOW.getTime() / 1000 + 120,
      jti: expect.stringMatching(/^[A-Za-z0-9_-]{22}$/),
      events: { [BACKCHANNEL_LOGOUT_EVENT]: {} },
      sid: 'sid-1',
    });
    expect(claims).not.toHaveProperty('nonce');
  });

  it('leaves out the sub or the sid it has not got; each token gets a new jti', () => {
    expect(logoutTokenClaims({ ...input, sessionId: null })).not.toHaveProperty('sid');
    expect(logoutTokenClaims({ ...input, subject: null })).not.toHaveProperty('sub');
    expect(logoutTokenClaims(input).jti).not.toBe(logoutTokenClaims(input).jti);
  });
});

describe('Back-Channel Logout 1.0 section 2.2: backchannelLogoutUriErrors', () => {
  const rules = { forceSsl: true, confidential: true, publicHostsOnly: false };
  const errors = (uri: string, overrides: Partial<typeof rules> = {}) => backchannelLogoutUriErrors(uri, { ...rules, ...overrides }, 'URI');

  it('takes https anywhere, and http on a loopback IP for a confidential client, or anywhere once forceSsl is off', () => {
    expect(errors('https://rp.example/logout?x=1')).toEqual([]);
    expect(errors('http://127.0.0.1:8080/logout')).toEqual([]);
    expect(errors('http://[::1]/logout')).toEqual([]);
    expect(errors('http://rp.example/logout')).toEqual(['URI must be an HTTPS/SSL URI.']);
    expect(errors('http://rp.example/logout', { forceSsl: false })).toEqual([]);
    expect(errors('http://127.0.0.1/logout', { confidential: false })).toEqual([
      'URI may use http only for a confidential client (Back-Channel Logout 1.0 section 2.2): use https.',
    ]);
  });

  it('refuses a fragment, a relative URI, another scheme, and credentials in the authority', () => {
    expect(errors('https://rp.example/logout#x')).toEqual(['URI cannot contain a fragment.']);
    expect(errors('/logout')).toEqual(['URI must be an absolute URI.']);
    expect(errors('com.example.app:/logout')).toEqual(['URI must be an https URI.']);
    expect(errors('https://user:pass@rp.example/logout')).not.toEqual([]);
  });

  it('with publicHostsOnly, refuses loopback, private, link-local and single-label hosts', () => {
    for (const uri of [
      'https://127.0.0.1/l',
      'https://10.0.0.1/l',
      'https://192.168.1.1/l',
      'https://[fe80::1]/l',
      'https://localhost/l',
      'https://intranet/l',
    ])
      expect(errors(uri, { publicHostsOnly: true }), uri).toEqual(['URI must not point at a loopback, private or link-local host.']);
    expect(errors('https://rp.example/l', { publicHostsOnly: true })).toEqual([]);
  });

  it('privateAddresses: adminClients lets only an admin-made client reach private networks; none nobody; all everybody', () => {
    const config = (privateAddresses: 'none' | 'adminClients' | 'all') =>
      ({ openid: { backchannelLogout: { privateAddresses } } }) as never;
    expect(mayReachPrivateAddresses(config('adminClients'), { registeredBy: 'admin' })).toBe(true);
    expect(mayReachPrivateAddresses(config('adminClients'), { registeredBy: 'dynamic' })).toBe(false);
    expect(mayReachPrivateAddresses(config('none'), { registeredBy: 'admin' })).toBe(false);
    expect(mayReachPrivateAddresses(config('all'), { registeredBy: 'metadata_document' })).toBe(true);
  });
});

describe('the delivery policy: retries with backoff, a lease per attempt', () => {
  it('waits retryAfterSeconds, then twice as long each time, never more than an hour', () => {
    expect([1, 2, 3, 4].map((attempts) => retryWaitSeconds(SETTINGS, attempts))).toEqual([30, 60, 120, 240]);
    expect(retryWaitSeconds({ ...SETTINGS, retryAfterSeconds: 3000 }, 3)).toBe(3600);
  });

  it('delivered is done; refused is given up at once; a retryable failure is retried until maxAttempts', () => {
    expect(settlementOf({ kind: 'delivered', status: 204 }, 1, SETTINGS, NOW)).toEqual({ outcome: 'delivered', at: NOW });
    expect(settlementOf({ kind: 'refused', reason: 'the client answered status 400' }, 1, SETTINGS, NOW)).toEqual({
      outcome: 'failed',
      at: NOW,
      error: 'the client answered status 400',
    });
    expect(settlementOf({ kind: 'retry', reason: 'no answer within 5000 ms' }, 2, SETTINGS, NOW)).toEqual({
      outcome: 'retry',
      at: NOW,
      retryAt: new Date(NOW.getTime() + 60_000),
      error: 'no answer within 5000 ms',
    });
    expect(settlementOf({ kind: 'retry', reason: 'no answer within 5000 ms' }, 4, SETTINGS, NOW)).toEqual({
      outcome: 'failed',
      at: NOW,
      error: 'no answer within 5000 ms; given up after 4 attempts',
    });
  });

  it("leases a claimed delivery past its attempt's deadline", () => {
    expect(leaseUntil(SETTINGS, NOW).getTime() - NOW.getTime()).toBeGreaterThan(SETTINGS.timeoutMs);
  });
});
