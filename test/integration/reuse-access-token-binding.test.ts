import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from '../helpers/factories.js';
import { dpopKey, dpopProof, type DpopKey } from '../helpers/dpop.js';
import { basic, tokenRequest, type Params } from '../helpers/oauth-requests.js';
import { backend } from '../helpers/test-database.js';
import { buildTestServer, type TestServer } from '../helpers/test-server.js';

// reuseAccessToken (reference 17.6) hands out an existing live token only when it is the token the request would
// get: the same key binding (RFC 9449; none for a request without a proof), the same resources (RFC 8707), and
// never past RFC 9449 section 5.2's dpop_bound_access_tokens.

const API = 'https://api.example.com/';

describe(`POST /oauth/token with reuseAccessToken: binding and audience decide reuse (${backend})`, () => {
  let server: TestServer;
  let key: DpopKey;
  let htu: string;
  beforeAll(async () => {
    server = await buildTestServer({ config: { reuseAccessToken: true, hashTokens: false } });
    await server.deps.stores.resources.create({
      name: 'API',
      uri: API,
      scopes: [],
      serverClientId: null,
      tokenFormat: 'opaque',
      accessTokenLifetime: null,
    });
    key = await dpopKey();
    htu = `${server.config.baseUrl.replace(/\/+$/, '')}/oauth/token`;
  });
  afterAll(() => server.close());

  const clientCredentials = async (client: { uid: string; secret: string | null }, proofKey?: DpopKey, extra: Params = {}) => {
    const headers = { ...basic(client.uid, client.secret!), ...(proofKey && { dpop: await dpopProof(proofKey, { htu }) }) };
    return tokenRequest(server.app, { grant_type: 'client_credentials', ...extra }, headers);
  };

  it('a token bound to a key is not reused for a request without a proof', async () => {
    const client = await createClient(server.deps);
    const bound = (await clientCredentials(client, key)).json();
    expect(bound.token_type).toBe('DPoP');
    const plain = await clientCredentials(client);
    expect(plain.statusCode).toBe(200);
    expect(plain.json().token_type).toBe('Bearer');
    expect(plain.json().access_token).not.toBe(bound.access_token);
  });

  it('an unbound token is not reused for a request with a proof; a token bound to the same key is, to another key not', async () => {
    const client = await createClient(server.deps);
    const plain = (await clientCredentials(client)).json();
    const bound = (await clientCredentials(client, key)).json();
    expect(bound.token_type).toBe('DPoP');
    expect(bound.access_token).not.toBe(plain.access_token);
    expect((await clientCredentials(client, key)).json().access_token).toBe(bound.access_token);
    const other = (await clientCredentials(client, await dpopKey())).json();
    expect(other.token_type).toBe('DPoP');
    expect(other.access_token).not.toBe(bound.access_token);
    expect((await clientCredentials(client)).json().access_token).toBe(plain.access_token);
  });

  it('a token for a resource is not reused for a request without one, nor the reverse', async () => {
    const client = await createClient(server.deps);
    const forApi = (await clientCredentials(client, undefined, { resource: API })).json();
    const unrestricted = (await clientCredentials(client)).json();
    expect(unrestricted.access_token).not.toBe(forApi.access_token);
    expect((await clientCredentials(client, undefined, { resource: API })).json().access_token).toBe(forApi.access_token);
    expect((await clientCredentials(client)).json().access_token).toBe(unrestricted.access_token);
  });

  it('a client with dpop_bound_access_tokens is refused without a proof even when a reusable token exists', async () => {
    const client = await createClient(server.deps);
    const earlier = await clientCredentials(client);
    expect(earlier.json().token_type).toBe('Bearer');
    await server.deps.stores.applicationAdmin.update(client.application.id, { dpopBoundAccessTokens: true });
    const response = await clientCredentials(client);
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual({
      error: 'invalid_dpop_proof',
      error_description: 'This client must send a DPoP proof: its access tokens are DPoP-bound.',
    });
  });
});
