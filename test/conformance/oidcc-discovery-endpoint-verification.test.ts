import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { discover, discoveredJwks, ISSUER, openIdProvider, pathOf, type OpenIdProvider } from './support.js';

// oidcc-discovery-endpoint-verification (Config OP): /.well-known/openid-configuration has every field
// Discovery 1.0 section 3 requires, with https endpoints on the issuer, the values the Basic OP needs, and a
// jwks_uri that serves public keys only.

describe('oidcc-discovery-endpoint-verification', () => {
  let op: OpenIdProvider;
  let document: Record<string, unknown>;
  beforeAll(async () => {
    op = await openIdProvider();
    document = await discover(op.server);
  });
  afterAll(() => op.close());

  it('has the REQUIRED fields with the values a Basic OP supports', () => {
    expect(document).toMatchObject({
      issuer: ISSUER,
      subject_types_supported: expect.arrayContaining(['public']),
      id_token_signing_alg_values_supported: expect.arrayContaining(['RS256']),
      response_types_supported: expect.arrayContaining(['code']),
      scopes_supported: expect.arrayContaining(['openid', 'profile', 'email', 'address', 'phone']),
      grant_types_supported: expect.arrayContaining(['authorization_code', 'refresh_token']),
      token_endpoint_auth_methods_supported: expect.arrayContaining(['client_secret_basic', 'client_secret_post']),
      claims_supported: expect.arrayContaining(['sub', 'iss', 'aud', 'name', 'email', 'address', 'phone_number']),
    });
    expect(document.response_modes_supported ?? ['query']).toContain('query');
    // Discovery 3: unsupported features are stated false, not left to a default of true.
    expect(document.request_uri_parameter_supported).toBe(false);
  });

  it('every endpoint is an https URL on the issuer, and each answers', async () => {
    for (const field of ['authorization_endpoint', 'token_endpoint', 'userinfo_endpoint', 'jwks_uri', 'end_session_endpoint']) {
      expect(String(document[field]).startsWith(`${ISSUER}/`), field).toBe(true);
    }
    const jwks = await op.server.app.inject({ method: 'GET', url: pathOf(document.jwks_uri) });
    expect(jwks.statusCode).toBe(200);
    const authorize = await op.server.app.inject({ method: 'GET', url: pathOf(document.authorization_endpoint) });
    expect(authorize.statusCode).not.toBe(404);
  });

  it('jwks_uri serves public signing keys, each with a distinct kid', async () => {
    const { keys } = await discoveredJwks(op.server);
    expect(keys.length).toBeGreaterThan(0);
    expect(new Set(keys.map((key) => key.kid)).size).toBe(keys.length);
    for (const key of keys) {
      expect(key.kid).toEqual(expect.any(String));
      expect(key.use ?? 'sig').toBe('sig');
      for (const secret of ['d', 'p', 'q', 'dp', 'dq', 'qi', 'k']) expect(key, `${key.kid} ${secret}`).not.toHaveProperty(secret);
    }
    expect(keys.some((key) => key.kty === 'RSA')).toBe(true);
  });
});
