import { describe, expect, it } from 'vitest';
import { toGuardToken } from '../../packages/guard/src/remote-introspection.js';
import { basicCredentials, remoteSettings, transportWarning } from '../../packages/guard/src/remote-settings.js';

describe('guard remote mode: reading an introspection response (RFC 7662 section 2.2)', () => {
  it('maps an active access-token answer', () => {
    const token = toGuardToken({
      active: true,
      scope: 'read  write',
      client_id: 'abc',
      token_type: 'Bearer',
      exp: 1900000000,
      iat: 1,
      sub: '7',
    });
    expect(token).toMatchObject({ active: true, scopes: ['read', 'write'], clientId: 'abc', resourceOwnerId: '7', expiresAt: 1900000000 });
    expect(token?.claims?.iat).toBe(1);
    expect(Object.isFrozen(token) && Object.isFrozen(token?.scopes)).toBe(true);
  });

  it('maps missing scope, client_id, sub and exp to empty values', () => {
    expect(toGuardToken({ active: true, token_type: 'bearer' })).toMatchObject({
      scopes: [],
      clientId: null,
      resourceOwnerId: null,
      expiresAt: null,
    });
  });

  it('treats inactive answers as no token', () => {
    expect(toGuardToken({ active: false })).toBeNull();
    expect(toGuardToken({ active: 'true', token_type: 'Bearer' })).toBeNull();
  });

  it('refuses an active answer whose token_type is not Bearer, or missing unless allowed (RFC 6749 section 1.5)', () => {
    expect(toGuardToken({ active: true, scope: 'read', exp: 1900000000 })).toBeNull();
    expect(toGuardToken({ active: true, token_type: 'refresh_token' })).toBeNull();
    expect(toGuardToken({ active: true }, true)).not.toBeNull();
  });
});

describe('guard remote mode: settings', () => {
  const base = { introspectionUrl: 'https://auth.example.com/oauth/introspect', clientId: 'api', clientSecret: 's' };

  it('applies the documented defaults', () => {
    expect(remoteSettings(base)).toMatchObject({
      cacheTtlSeconds: 30,
      negativeCacheTtlSeconds: 5,
      cacheMaxEntries: 10_000,
      timeoutMs: 2000,
    });
  });

  it('fails at registration on a bad URL, empty credentials or a negative number', () => {
    expect(() => remoteSettings({ ...base, introspectionUrl: '/oauth/introspect' })).toThrow(/introspectionUrl/);
    expect(() => remoteSettings({ ...base, introspectionUrl: 'ftp://x/y' })).toThrow(/introspectionUrl/);
    expect(() => remoteSettings({ ...base, clientSecret: '' })).toThrow(/clientSecret/);
    expect(() => remoteSettings({ ...base, cacheTtlSeconds: -1 })).toThrow(/cacheTtlSeconds/);
    expect(() => remoteSettings({ ...base, timeoutMs: 0 })).toThrow(/timeoutMs/);
  });

  it('form-urlencodes id and secret before base64 (RFC 6749 appendix B)', () => {
    const header = basicCredentials('my client', 'p@ss:w/rd+é');
    const decoded = Buffer.from(header.slice('Basic '.length), 'base64').toString('utf8');
    expect(decoded).toBe('my+client:p%40ss%3Aw%2Frd%2B%C3%A9');
  });

  it('warns about plain http except on loopback (RFC 7662 section 4)', () => {
    expect(transportWarning('http://auth.internal/oauth/introspect')).toMatch(/TLS/);
    expect(transportWarning('http://127.0.0.1:3000/oauth/introspect')).toBeNull();
    expect(transportWarning('https://auth.example.com/oauth/introspect')).toBeNull();
  });
});
