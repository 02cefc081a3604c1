import * as oauth from 'oauth4webapi';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openIdServer } from '../helpers/openid.js';
import { listeningTestServer } from '../helpers/listening-server.js';
import { buildTestServer, type TestServer } from '../helpers/test-server.js';

describe('GET /.well-known/oauth-authorization-server (RFC 8414)', () => {
  // The issuer must be the URL the client discovers: the server listens on the address it has as baseUrl.
  let server: TestServer;
  let issuer: URL;
  beforeAll(async () => {
    server = await listeningTestServer({
      optionalScopes: ['write'],
      grantFlows: ['authorization_code', 'client_credentials', 'refresh_token', 'password'],
    });
    issuer = new URL(server.config.baseUrl);
  });
  afterAll(() => server.close());

  it('has the fields RFC 8414 section 2 requires, reflecting the config', async () => {
    const response = await server.app.inject({ method: 'GET', url: '/.well-known/oauth-authorization-server' });
    expect(response.statusCode).toBe(200);
    const metadata = response.json();
    const base = issuer.href.replace(/\/$/, '');
    expect(metadata).toMatchObject({
      issuer: base,
      authorization_endpoint: `${base}/oauth/authorize`,
      token_endpoint: `${base}/oauth/token`,
      revocation_endpoint: `${base}/oauth/revoke`,
      introspection_endpoint: `${base}/oauth/introspect`,
      scopes_supported: ['read', 'write'],
      response_types_supported: ['code'],
      response_modes_supported: ['query', 'fragment', 'form_post'],
      grant_types_supported: ['authorization_code', 'client_credentials', 'refresh_token', 'password'],
      // Issue 34: private_key_jwt; client_secret_jwt only with hashApplicationSecrets off (HS256 needs the secret).
      token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post', 'none', 'private_key_jwt'],
      token_endpoint_auth_signing_alg_values_supported: ['RS256', 'PS256', 'ES256', 'EdDSA', 'Ed25519'],
      revocation_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post', 'none', 'private_key_jwt'],
      revocation_endpoint_auth_signing_alg_values_supported: ['RS256', 'PS256', 'ES256', 'EdDSA', 'Ed25519'],
      introspection_endpoint_auth_methods_supported: ['client_secret_basic', 'bearer', 'private_key_jwt'],
      introspection_endpoint_auth_signing_alg_values_supported: ['RS256', 'PS256', 'ES256', 'EdDSA', 'Ed25519'],
      code_challenge_methods_supported: ['S256'],
      authorization_response_iss_parameter_supported: true,
    });
  });

  it('is accepted by oauth4webapi discovery', async () => {
    const response = await oauth.discoveryRequest(issuer, { algorithm: 'oauth2', [oauth.allowInsecureRequests]: true });
    const metadata = await oauth.processDiscoveryResponse(issuer, response);
    expect(metadata.token_endpoint).toBe(`${issuer.origin}/oauth/token`);
  });

  it('claims back-channel logout (Back-Channel Logout 1.0 section 2.1) only while OpenID Connect is on (issue 31)', async () => {
    const off = (await server.app.inject({ method: 'GET', url: '/.well-known/oauth-authorization-server' })).json();
    expect(off).not.toHaveProperty('backchannel_logout_supported');
    expect(off).not.toHaveProperty('backchannel_logout_session_supported');
    const openid = await openIdServer();
    const on = (await openid.app.inject({ method: 'GET', url: '/.well-known/openid-configuration' })).json();
    expect(on).toMatchObject({ backchannel_logout_supported: true, backchannel_logout_session_supported: true });
    await openid.close();
  });

  it('omits the introspection endpoint when introspection is disabled, and token when implicit is off', async () => {
    const other = await buildTestServer({ config: { introspection: { enabled: false } } });
    const metadata = (await other.app.inject({ method: 'GET', url: '/.well-known/oauth-authorization-server' })).json();
    expect(metadata.introspection_endpoint).toBeUndefined();
    expect(metadata.response_types_supported).toEqual(['code']);
    await other.close();
  });

  it('claims no pairwise subjects while OpenID Connect is off, even with openid.pairwiseSalt set (issue 31)', async () => {
    const other = await buildTestServer({ config: { openid: { enabled: false, pairwiseSalt: 'a-salt-of-at-least-32-characters-0123' } } });
    const metadata = (await other.app.inject({ method: 'GET', url: '/.well-known/oauth-authorization-server' })).json();
    expect(metadata.subject_types_supported).toBeUndefined();
    expect((await other.app.inject({ method: 'GET', url: '/.well-known/openid-configuration' })).statusCode).toBe(404);
    await other.close();
  });

  it('OpenID Connect on without the code flow (JWT access tokens for client_credentials) publishes its keys, but is no OpenID Provider', async () => {
    const other = await openIdServer({ config: { grantFlows: ['client_credentials'] } });
    try {
      const metadata = (await other.app.inject({ method: 'GET', url: '/.well-known/oauth-authorization-server' })).json();
      expect(metadata.jwks_uri).toBe(`${other.config.baseUrl.replace(/\/+$/, '')}/oauth/jwks`);
      // Discovery 1.0 section 3 requires an authorization endpoint and the code response type: none of its fields.
      for (const field of [
        'authorization_endpoint',
        'userinfo_endpoint',
        'end_session_endpoint',
        'claims_parameter_supported',
        'prompt_values_supported',
      ])
        expect(metadata).not.toHaveProperty(field);
      expect((await other.app.inject({ method: 'GET', url: '/.well-known/openid-configuration' })).statusCode).toBe(404);
      expect((await other.app.inject({ method: 'GET', url: '/oauth/jwks' })).statusCode).toBe(200);
    } finally {
      await other.close();
    }
  });

  it('OpenID Connect on with the device grant and no code flow: the ID token and UserInfo fields, no Discovery document', async () => {
    const other = await openIdServer({ config: { grantFlows: ['refresh_token', 'urn:ietf:params:oauth:grant-type:device_code'] } });
    try {
      const metadata = (await other.app.inject({ method: 'GET', url: '/.well-known/oauth-authorization-server' })).json();
      // The device grant answers an ID token for openid (behaviour.md 3.14): what a client needs to check it is here.
      expect(metadata).toMatchObject({
        userinfo_endpoint: `${other.config.baseUrl.replace(/\/+$/, '')}/oauth/userinfo`,
        subject_types_supported: ['public'],
        id_token_signing_alg_values_supported: expect.arrayContaining(['RS256']),
        claims_supported: expect.arrayContaining(['sub', 'email']),
      });
      for (const field of ['authorization_endpoint', 'end_session_endpoint', 'claims_parameter_supported', 'prompt_values_supported'])
        expect(metadata).not.toHaveProperty(field);
      expect((await other.app.inject({ method: 'GET', url: '/.well-known/openid-configuration' })).statusCode).toBe(404);
    } finally {
      await other.close();
    }
  });

  it('an issuer with a path is also served where RFC 8414 section 3.1 puts it, the well-known suffix before the path', async () => {
    const other = await openIdServer({ config: { baseUrl: 'https://auth.example.com/tenant-a' } });
    try {
      for (const url of [
        '/.well-known/oauth-authorization-server',
        '/.well-known/oauth-authorization-server/tenant-a',
        '/.well-known/openid-configuration',
        '/.well-known/openid-configuration/tenant-a',
      ]) {
        const response = await other.app.inject({ method: 'GET', url, headers: { origin: 'https://app.example' } });
        expect({ url, status: response.statusCode, issuer: response.json().issuer }).toEqual({
          url,
          status: 200,
          issuer: 'https://auth.example.com/tenant-a',
        });
        expect(response.headers['access-control-allow-origin']).toBe('*');
      }
      expect((await other.app.inject({ method: 'GET', url: '/.well-known/oauth-authorization-server/tenant-b' })).statusCode).toBe(404);
    } finally {
      await other.close();
    }
  });
});
