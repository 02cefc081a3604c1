import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { s256Challenge } from '../../src/oauth/authorization/pkce.js';
import { dpopKey, dpopProof, type DpopKey } from '../helpers/dpop.js';
import { authorizeUrl, createClient, createUser, hiddenFields, locationParameters, signedIn, type UserAgent } from '../helpers/end-user.js';
import { tokenRequest } from '../helpers/oauth-requests.js';
import { backend } from '../helpers/test-database.js';
import { buildTestServer, type TestServer } from '../helpers/test-server.js';

// RFC 9449 with a user and a public client: section 10's dpop_jkt binds the code to a key, and section 5 binds a
// public client's refresh token to the key of its access token.

const CALLBACK = 'https://client.example.com/callback';
const VERIFIER = 'dpop-verifier-0123456789-0123456789-0123456789';

describe(`DPoP in the code flow, RFC 9449 sections 5 and 10 (${backend})`, () => {
  let server: TestServer;
  let agent: UserAgent;
  let clientId: string;
  let key: DpopKey;
  let htu: string;
  beforeAll(async () => {
    server = await buildTestServer();
    await createUser(server.deps, 'alice');
    agent = await signedIn(server.app, 'alice');
    clientId = (await createClient(server.deps, { confidential: false })).application.uid;
    key = await dpopKey();
    htu = `${server.config.baseUrl.replace(/\/+$/, '')}/oauth/token`;
  });
  afterAll(() => server.close());

  const code = async (extra: Record<string, string> = {}) => {
    const parameters = {
      client_id: clientId,
      redirect_uri: CALLBACK,
      response_type: 'code',
      code_challenge: s256Challenge(VERIFIER),
      code_challenge_method: 'S256',
      ...extra,
    };
    const page = await agent.request({ method: 'GET', url: authorizeUrl(parameters) });
    const redirect = page.statusCode === 200 ? await agent.post('/oauth/authorize', hiddenFields(page.body)) : page;
    return locationParameters(redirect).get('code')!;
  };
  const exchange = async (value: string, proofKey?: DpopKey) =>
    tokenRequest(
      server.app,
      { grant_type: 'authorization_code', code: value, redirect_uri: CALLBACK, client_id: clientId, code_verifier: VERIFIER },
      proofKey ? { dpop: await dpopProof(proofKey, { htu }) } : {},
    );
  const refresh = async (refreshToken: string, proofKey?: DpopKey) =>
    tokenRequest(
      server.app,
      { grant_type: 'refresh_token', refresh_token: refreshToken, client_id: clientId },
      proofKey ? { dpop: await dpopProof(proofKey, { htu }) } : {},
    );

  it('section 10: a code requested with dpop_jkt is exchanged only with a proof of that key', async () => {
    const other = await dpopKey();
    expect((await exchange(await code({ dpop_jkt: key.jkt }), other)).json().error).toBe('invalid_grant');
    expect((await exchange(await code({ dpop_jkt: key.jkt }))).json()).toEqual({
      error: 'invalid_dpop_proof',
      error_description: 'This code is DPoP-bound (dpop_jkt): send a DPoP proof of its key.',
    });
    const bound = await exchange(await code({ dpop_jkt: key.jkt }), key);
    expect(bound.statusCode).toBe(200);
    expect(bound.json().token_type).toBe('DPoP');
  });

  it('section 5: a public client refreshes a bound refresh token only with a proof of the same key', async () => {
    const first = (await exchange(await code(), key)).json();
    expect(first.token_type).toBe('DPoP');
    const without = await refresh(first.refresh_token);
    expect(without.json()).toEqual({
      error: 'invalid_dpop_proof',
      error_description: 'This refresh token is DPoP-bound: send a DPoP proof of its key.',
    });
    expect((await refresh(first.refresh_token, await dpopKey())).json().error).toBe('invalid_grant');
    const refreshed = await refresh(first.refresh_token, key);
    expect(refreshed.statusCode).toBe(200);
    expect(refreshed.json().token_type).toBe('DPoP');
  });

  it('without DPoP the flow is as before: Bearer, and the refresh needs no proof', async () => {
    const first = (await exchange(await code())).json();
    expect(first.token_type).toBe('Bearer');
    expect((await refresh(first.refresh_token)).json().token_type).toBe('Bearer');
  });
});
