import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authorizeUrl, createClient, hiddenFields, locationParameters } from '../helpers/end-user.js';
import { buildTestServer } from '../helpers/test-server.js';
import { sha256Hex } from '../../src/oauth/secrets.js';
import {
  codeFrom,
  discover,
  exchange,
  openIdProvider,
  redirectedError,
  suiteCodeFlow,
  suiteRequest,
  tokenEndpoint,
  userInfoClaims,
  validIdToken,
  type Client,
  type OpenIdProvider,
} from './support.js';

// oidcc-refresh-token as the suite runs it, with scope "openid offline_access" and prompt=consent (OpenID Connect
// Core 1.0 section 11), and the rest of section 11: offline_access is offered while OpenID Connect is on, never has to
// be accepted by a resource (RFC 8707), is ignored without a code, and is honoured only after the consent screen. A
// client's refreshTokens setting decides whether its refresh tokens need it (offline_access) or not (always).

const CONSENT_LINE = (name: string) => `Stay signed in to ${name} when you are away`;

describe('oidcc-refresh-token with offline_access: OpenID Connect Core 1.0 section 11', () => {
  let op: OpenIdProvider;
  let offline: Client;
  beforeAll(async () => {
    op = await openIdProvider({ config: { optionalScopes: ['read'] } });
    offline = await op.newClient({ name: 'Offline RP', refreshTokens: 'offline_access' });
  });
  afterAll(() => op.close());
  /** POST /oauth/token grant_type=refresh_token as the client, expected to succeed: the token response. */
  const refresh = async (client: Client, refreshToken: string, parameters: Record<string, string> = {}) => {
    const response = await tokenEndpoint(op, { grant_type: 'refresh_token', refresh_token: refreshToken, ...parameters }, { client });
    expect(response.statusCode, response.body).toBe(200);
    return response.json() as Record<string, unknown>;
  };

  it('OpenID Connect Core 1.0 section 11: discovery offers offline_access in scopes_supported while OpenID Connect is on', async () => {
    expect((await discover(op.server)).scopes_supported).toEqual(expect.arrayContaining(['openid', 'offline_access']));
    const plain = await buildTestServer();
    try {
      const metadata = await plain.app.inject({ method: 'GET', url: '/.well-known/oauth-authorization-server' });
      expect(metadata.json().scopes_supported).not.toContain('offline_access');
    } finally {
      await plain.close();
    }
  });

  it('OpenID Connect Core 1.0 section 11: scope "openid offline_access" with prompt=consent shows the consent page naming it, then a refresh token that works', async () => {
    const request = suiteRequest(offline, { scope: 'openid offline_access', prompt: 'consent' });
    const page = await op.agent.request({ method: 'GET', url: authorizeUrl(request) });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain(CONSENT_LINE('Offline RP'));
    const code = codeFrom(await op.agent.post('/oauth/authorize', hiddenFields(page.body)), request);
    const first = await exchange(op, code, { client: offline, nonce: request.nonce });
    expect(first.tokens.scope).toBe('openid offline_access');
    expect(first.tokens.refresh_token).toEqual(expect.any(String));

    op.server.clock.advance(5);
    const response = await tokenEndpoint(
      op,
      { grant_type: 'refresh_token', refresh_token: first.tokens.refresh_token! },
      { client: offline },
    );
    expect(response.statusCode, response.body).toBe(200);
    const refreshed = response.json();
    const claims = await validIdToken(op, refreshed.id_token, offline, { accessToken: refreshed.access_token });
    expect(claims).toMatchObject({ sub: first.claims.sub, auth_time: first.claims.auth_time });
    await userInfoClaims(op, refreshed.access_token, claims.sub);
  });

  it('OpenID Connect Core 1.0 section 11: a client whose refreshTokens is offline_access gets no refresh token without offline_access', async () => {
    const { tokens } = await suiteCodeFlow(op, { scope: 'openid' }, { client: offline });
    expect(tokens.access_token).toEqual(expect.any(String));
    expect(tokens).not.toHaveProperty('refresh_token');
  });

  it('OpenID Connect Core 1.0 section 11: a client whose refreshTokens is always (the default) gets one without offline_access, as the MCP SDK needs', async () => {
    const { tokens } = await suiteCodeFlow(op, { scope: 'openid' });
    expect(tokens.refresh_token).toEqual(expect.any(String));
  });

  it('OpenID Connect Core 1.0 section 11: a refresh narrowed to scope=openid gets an access token and no refresh token for a client whose refreshTokens is offline_access', async () => {
    const { tokens } = await suiteCodeFlow(op, { scope: 'openid offline_access', prompt: 'consent' }, { client: offline });
    expect(tokens.refresh_token).toEqual(expect.any(String));
    const narrowed = await refresh(offline, tokens.refresh_token!, { scope: 'openid' });
    expect(narrowed).toMatchObject({ access_token: expect.any(String), scope: 'openid' });
    expect(narrowed).not.toHaveProperty('refresh_token');
  });

  it('OpenID Connect Core 1.0 section 11: a refresh token issued before the client was switched to offline_access gets no successor without it', async () => {
    const switched = await op.newClient({ name: 'Switched RP' });
    const { tokens } = await suiteCodeFlow(op, { scope: 'openid' }, { client: switched });
    await op.server.deps.stores.applicationAdmin.update(switched.application.id, { refreshTokens: 'offlineAccess' });
    const refreshed = await refresh(switched, tokens.refresh_token!);
    expect(refreshed.access_token).toEqual(expect.any(String));
    expect(refreshed).not.toHaveProperty('refresh_token');
  });

  it('OpenID Connect Core 1.0 section 11: a client whose refreshTokens is always keeps rotating with scope=openid', async () => {
    const always = await op.newClient({ name: 'Always RP' });
    let { refresh_token: refreshToken } = (
      await suiteCodeFlow(op, { scope: 'openid offline_access', prompt: 'consent' }, { client: always })
    ).tokens;
    for (const parameters of [{ scope: 'openid' }, {}] as Array<Record<string, string>>) {
      const refreshed = await refresh(always, refreshToken!, parameters);
      expect(refreshed.refresh_token).toEqual(expect.any(String));
      refreshToken = refreshed.refresh_token as string;
    }
  });

  it('OpenID Connect Core 1.0 section 11 with RFC 8707: offline_access beside a resource is never refused by the resource check', async () => {
    await op.server.deps.stores.resources.create({
      uri: 'https://api.example/notes',
      name: 'Notes API',
      scopes: ['read'],
      tokenFormat: 'opaque',
      accessTokenLifetime: null,
      serverClientId: null,
    });
    const { tokens } = await suiteCodeFlow(
      op,
      { scope: 'openid offline_access read', resource: 'https://api.example/notes', prompt: 'consent' },
      { client: offline },
    );
    expect(tokens.scope).toBe('openid offline_access read');
    expect(tokens.refresh_token).toEqual(expect.any(String));
    const refreshed = await refresh(offline, tokens.refresh_token!, { resource: 'https://api.example/notes' });
    expect(refreshed.scope).toBe('openid offline_access read');
  });
});

describe('OpenID Connect Core 1.0 section 11: consent to offline_access is always obtained', () => {
  let op: OpenIdProvider;
  let listed: Client;
  beforeAll(async () => {
    op = await openIdProvider({ config: { skipAuthorization: { clients: ['listed-rp'], whenPreviouslyAuthorized: true } } });
    listed = await createClient(op.server.deps, { name: 'Listed RP', refreshTokens: 'offline_access' }, { uid: 'listed-rp' });
  });
  afterAll(() => op.close());

  it('OpenID Connect Core 1.0 section 11: a client in skipAuthorization.clients skips consent for openid, but not for offline_access', async () => {
    const plain = suiteRequest(listed, { scope: 'openid' });
    codeFrom(await op.agent.request({ method: 'GET', url: authorizeUrl(plain) }), plain);
    const offline = suiteRequest(listed, { scope: 'openid offline_access' });
    const page = await op.agent.request({ method: 'GET', url: authorizeUrl(offline) });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain(CONSENT_LINE('Listed RP'));
  });

  it('OpenID Connect Core 1.0 section 11: prompt=none with offline_access not yet consented to is consent_required, with no code', async () => {
    const request = suiteRequest(listed, { scope: 'openid offline_access', prompt: 'none' });
    expect(redirectedError(await op.agent.request({ method: 'GET', url: authorizeUrl(request) }), request)).toBe('consent_required');
  });

  it('OpenID Connect Core 1.0 section 11: consent once given to offline_access is remembered (skipAuthorization.whenPreviouslyAuthorized)', async () => {
    const first = await suiteCodeFlow(op, { scope: 'openid offline_access' }, { client: listed });
    expect(first.tokens.refresh_token).toEqual(expect.any(String));
    const again = suiteRequest(listed, { scope: 'openid offline_access', prompt: 'none' });
    const code = codeFrom(await op.agent.request({ method: 'GET', url: authorizeUrl(again) }), again);
    const second = await exchange(op, code, { client: listed, nonce: again.nonce });
    expect(second.tokens.refresh_token).toEqual(expect.any(String));
  });
});

describe('OpenID Connect Core 1.0 section 11: offline_access without a code', () => {
  let op: OpenIdProvider;
  beforeAll(async () => {
    op = await openIdProvider({ config: { grantFlows: ['authorization_code', 'implicit', 'refresh_token'] } });
  });
  afterAll(() => op.close());

  it('OpenID Connect Core 1.0 section 11: response_type=token ignores offline_access: the token is issued without it and without a refresh token, and the response names the scope granted (RFC 6749 section 4.2.2)', async () => {
    const request = suiteRequest(op.client, { response_type: 'token', scope: 'openid offline_access' });
    const page = await op.agent.request({ method: 'GET', url: authorizeUrl(request) });
    expect(page.statusCode).toBe(200);
    expect(page.body).not.toContain('Stay signed in');
    const redirect = await op.agent.post('/oauth/authorize', hiddenFields(page.body));
    const fragment = locationParameters(redirect, 'hash');
    expect(fragment.get('scope')).toBe('openid');
    expect(fragment.has('refresh_token')).toBe(false);
    const token = await op.server.deps.stores.accessTokens.findByToken(sha256Hex(fragment.get('access_token')!));
    expect(token).toMatchObject({ scopes: ['openid'], refreshToken: null });
  });

  it('OpenID Connect Core 1.0 section 11: response_type=token with offline_access alone is invalid_scope (nothing is left to grant)', async () => {
    const request = suiteRequest(op.client, { response_type: 'token', scope: 'offline_access' });
    const redirect = await op.agent.request({ method: 'GET', url: authorizeUrl(request) });
    expect(locationParameters(redirect, 'hash').get('error')).toBe('invalid_scope');
  });
});

describe('OpenID Connect Core 1.0 section 11: offline_access without the refresh_token grant', () => {
  let op: OpenIdProvider;
  beforeAll(async () => {
    op = await openIdProvider({ config: { grantFlows: ['authorization_code'] } });
  });
  afterAll(() => op.close());

  it('OpenID Connect Discovery 1.0 section 3: without refresh_token in grantFlows, scopes_supported has no offline_access (nor registration.allowedScopes)', async () => {
    const scopes = (await discover(op.server)).scopes_supported;
    expect(scopes).toEqual(expect.arrayContaining(['openid', 'profile']));
    expect(scopes).not.toContain('offline_access');
    expect(op.server.deps.config.registration.allowedScopes).not.toContain('offline_access');
  });

  it('OpenID Connect Core 1.0 section 11: without refresh_token in grantFlows, asking for offline_access is invalid_scope, with no consent to staying signed in', async () => {
    const request = suiteRequest(op.client, { scope: 'openid offline_access', prompt: 'consent' });
    expect(redirectedError(await op.agent.request({ method: 'GET', url: authorizeUrl(request) }), request)).toBe('invalid_scope');
  });
});
