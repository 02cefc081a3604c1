import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApplicationRecord } from '../../src/oauth/store.js';
import { OOB_URI } from '../../src/oauth/authorization/redirect-uri.js';
import { sha256Hex } from '../../src/oauth/secrets.js';
import {
  authorizeUrl,
  CALLBACK,
  countRows,
  createClient,
  createUser,
  hiddenFields,
  locationParameters,
  signedIn,
  type UserAgent,
} from '../helpers/end-user.js';
import { backend } from '../helpers/test-database.js';
import { buildTestServer, type TestServer } from '../helpers/test-server.js';

describe(`/oauth/authorize response_type=token when the implicit flow is enabled (${backend})`, () => {
  let server: TestServer;
  let client: ApplicationRecord;
  let agent: UserAgent;

  beforeAll(async () => {
    server = await buildTestServer({ config: { grantFlows: ['authorization_code', 'implicit'] } });
    await createUser(server.deps, 'alice');
    client = (await createClient(server.deps, { confidential: false, redirectUri: `${CALLBACK} ${OOB_URI}` })).application;
    agent = await signedIn(server.app, 'alice');
  });
  afterAll(() => server.close());

  const authorize = (parameters: Record<string, string> = {}) =>
    agent.request({
      method: 'GET',
      url: authorizeUrl({ client_id: client.uid, redirect_uri: CALLBACK, response_type: 'token', ...parameters }),
    });

  it('approval redirects with access_token, token_type, expires_in, state and iss in the fragment; no scope, no refresh token', async () => {
    const page = await authorize({ state: 'st' });
    expect(page.statusCode).toBe(200);
    expect(hiddenFields(page.body, 0).response_mode).toBe('fragment');
    const response = await agent.post('/oauth/authorize', hiddenFields(page.body, 0));
    expect(response.statusCode).toBe(303);
    expect(String(response.headers.location).startsWith(`${CALLBACK}#access_token=`)).toBe(true);
    const fragment = locationParameters(response, 'hash');
    expect([...fragment.keys()]).toEqual(['access_token', 'token_type', 'expires_in', 'state', 'iss']);
    expect(fragment.get('token_type')).toBe('Bearer');
    expect(fragment.get('expires_in')).toBe('7200');
    expect(fragment.get('state')).toBe('st');
    const token = await server.deps.stores.accessTokens.findByToken(sha256Hex(fragment.get('access_token')!));
    expect(token).toMatchObject({ applicationId: client.id, refreshToken: null, scopes: ['read'] });
    expect(await countRows(server, 'oauth_access_grants')).toBe(0);
  });

  it('needs no code_challenge: PKCE protects codes only', async () => {
    expect((await authorize()).statusCode).toBe(200);
  });

  it('response_mode=query is unsupported_response_mode, delivered in the fragment', async () => {
    const response = await authorize({ response_mode: 'query', state: 's' });
    expect(response.statusCode).toBe(302);
    const fragment = locationParameters(response, 'hash');
    expect(fragment.get('error')).toBe('unsupported_response_mode');
    expect(fragment.get('state')).toBe('s');
  });

  it('deny for response_type=token puts access_denied in the fragment', async () => {
    const page = await authorize();
    const response = await agent.post('/oauth/authorize', hiddenFields(page.body, 1));
    expect(locationParameters(response, 'hash').get('error')).toBe('access_denied');
  });

  it('rule out_of_band_code_only: a token is never issued to the out-of-band URI', async () => {
    const response = await authorize({ redirect_uri: OOB_URI });
    expect(response.statusCode).toBe(400);
    expect(response.headers.location).toBeUndefined();
    expect(response.body).toContain('The authorization server does not support this response type.');
  });
});
