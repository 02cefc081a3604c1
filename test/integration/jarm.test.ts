import * as oauth from 'oauth4webapi';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authorizeUrl, createClient, createUser, signedIn, type UserAgent } from '../helpers/end-user.js';
import { authorize, CALLBACK, openIdServer } from '../helpers/openid.js';
import { backend } from '../helpers/test-database.js';
import { buildTestServer, type TestServer } from '../helpers/test-server.js';

// JWT Secured Authorization Response Mode (JARM, issue 36 item 3) as a real client library checks it: oauth4webapi's
// validateJwtAuthResponse verifies the response JWT's signature with the server's JWKS, its iss, aud and exp, then
// reads the code (or the error) from its claims.

const http = { [oauth.allowInsecureRequests]: true };

describe(`JWT-secured authorization responses (JARM) on ${backend}`, () => {
  let server: TestServer;
  let as: oauth.AuthorizationServer;
  let client: oauth.Client;
  let auth: oauth.ClientAuth;
  let agent: UserAgent;

  beforeAll(async () => {
    server = await openIdServer({ config: { grantFlows: ['authorization_code', 'implicit', 'refresh_token'] } });
    const address = await server.app.listen({ port: 0, host: '127.0.0.1' });
    const metadata = (await (await fetch(`${address}/.well-known/oauth-authorization-server`)).json()) as oauth.AuthorizationServer;
    // The issuer is baseUrl; the endpoints are reached at the listening address.
    as = { ...metadata, jwks_uri: `${address}/oauth/jwks`, token_endpoint: `${address}/oauth/token` };
    const registered = await createClient(server.deps, { redirectUri: CALLBACK, scopes: 'read' });
    client = { client_id: registered.application.uid };
    auth = oauth.ClientSecretBasic(registered.plainSecret!);
    await createUser(server.deps);
    agent = await signedIn(server.app, 'alice');
  });
  afterAll(() => server.close());

  const codeRequest = (parameters: Record<string, string>) => ({
    client_id: client.client_id,
    redirect_uri: CALLBACK,
    response_type: 'code',
    scope: 'read',
    ...parameters,
  });

  it('discovery lists the JWT modes and the signing algorithms a client may register (JARM section 3)', () => {
    expect(as.response_modes_supported).toEqual(['query', 'fragment', 'form_post', 'query.jwt', 'fragment.jwt', 'form_post.jwt', 'jwt']);
    expect(as.authorization_signing_alg_values_supported).toEqual(['RS256', 'ES256', 'EdDSA']);
  });

  it('response_mode=jwt: a signed response in the query that oauth4webapi validates, and its code exchanged', async () => {
    const state = oauth.generateRandomState();
    const verifier = oauth.generateRandomCodeVerifier();
    const redirect = await authorize(
      agent,
      codeRequest({
        response_mode: 'jwt',
        state,
        code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
        code_challenge_method: 'S256',
      }),
    );
    expect(redirect.statusCode).toBe(303);
    const callback = new URL(String(redirect.headers.location));
    // The parameters travel inside the JWT only: no code, state or iss beside it.
    expect([...callback.searchParams.keys()]).toEqual(['response']);
    const parameters = await oauth.validateJwtAuthResponse(as, client, callback, state, http);
    const tokens = await oauth.processAuthorizationCodeResponse(
      as,
      client,
      await oauth.authorizationCodeGrantRequest(as, client, auth, parameters, CALLBACK, verifier, http),
    );
    expect(tokens).toMatchObject({ token_type: 'bearer', scope: 'read' });
  });

  it('form_post.jwt: the page posts one field, the response JWT', async () => {
    const state = oauth.generateRandomState();
    // Consent was given by the test before: the answer is the form_post page at once.
    const page = await agent.request({ method: 'GET', url: authorizeUrl(codeRequest({ response_mode: 'form_post.jwt', state })) });
    expect(page.statusCode).toBe(200);
    const fields = [...page.body.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)].map((match) => match[1]);
    expect(fields).toEqual(['response']);
    const jwt = /name="response" value="([^"]+)"/.exec(page.body)![1]!;
    // What the client's callback receives in the POST body.
    const parameters = await oauth.validateJwtAuthResponse(as, client, new URLSearchParams({ response: jwt }), state, http);
    expect(parameters.get('code')).toMatch(/.+/);
  });

  it('an error after the redirect URI is trusted comes signed too, and the client reads it as an error', async () => {
    const state = oauth.generateRandomState();
    const redirect = await authorize(agent, codeRequest({ response_mode: 'query.jwt', state, scope: 'no-such-scope' }));
    expect(redirect.statusCode).toBe(302);
    const callback = new URL(String(redirect.headers.location));
    const error = await oauth.validateJwtAuthResponse(as, client, callback, state, http).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(oauth.AuthorizationResponseError);
    expect((error as oauth.AuthorizationResponseError).error).toBe('invalid_scope');
  });

  it('query.jwt is refused for response_type=token: the access token would travel in the query unencrypted (JARM 2.3.1)', async () => {
    const redirect = await authorize(agent, { ...codeRequest({ response_mode: 'query.jwt' }), response_type: 'token' });
    expect(redirect.statusCode).toBe(302);
    const location = new URL(String(redirect.headers.location));
    expect(new URLSearchParams(location.hash.slice(1)).get('error')).toBe('unsupported_response_mode');
  });

  it('without OpenID Connect there are no signing keys: the JWT modes are unsupported and not advertised', async () => {
    const plain = await buildTestServer();
    try {
      const document = (await plain.app.inject({ method: 'GET', url: '/.well-known/oauth-authorization-server' })).json<
        Record<string, unknown>
      >();
      expect(document.response_modes_supported).toEqual(['query', 'fragment', 'form_post']);
      expect(document).not.toHaveProperty('authorization_signing_alg_values_supported');
    } finally {
      await plain.close();
    }
  });
});
