import { randomBytes } from 'node:crypto';
import type { LightMyRequestResponse } from 'fastify';
import { decodeJwt, decodeProtectedHeader, SignJWT } from 'jose';
import * as oauth from 'oauth4webapi';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { updateApplication } from '../../src/oauth/clients/applications.js';
import { assertionParams, clientAssertion, clientKey, jwksOf, type ClientKey } from '../helpers/client-assertions.js';
import { dpopKey, dpopProof, type DpopKey } from '../helpers/dpop.js';
import { authorizeUrl, createClient, createUser, hiddenFields, signedIn, type UserAgent } from '../helpers/end-user.js';
import { listeningTestServer } from '../helpers/listening-server.js';
import { discovered, insecureHttp as http, pkceCodeRequest } from '../helpers/oauth4webapi.js';
import { backend } from '../helpers/test-database.js';
import { FORM, form, type TestServer } from '../helpers/test-server.js';

// FAPI 2.0 Security Profile section 5.4 for a client of profile fapi2: its client assertions and request objects are
// signed with PS256, ES256 or EdDSA only, and what this server signs for it (ID tokens, JARM responses, signed
// UserInfo) uses the first FAPI algorithm of keys.algorithms (EdDSA here, RS256 being first) when it chose none, or
// when what is stored is not FAPI's. The rest of the profile is fapi2-profile.test.ts's.

const CALLBACK = 'https://client.example.com/callback';
const ASSERTION_REFUSAL = 'FAPI 2.0: the client assertion must be signed with one of PS256, ES256, EdDSA, Ed25519 (profile fapi2).';
const REQUEST_OBJECT_REFUSAL = 'FAPI 2.0: the request object must be signed with one of PS256, ES256, EdDSA, Ed25519 (profile fapi2).';

describe(`the fapi2 profile's algorithms (FAPI 2.0 Security Profile 5.4) on ${backend}`, () => {
  let server: TestServer & { baseUrl: string };
  let as: oauth.AuthorizationServer;
  let keys: Record<'es' | 'rs' | 'ps', ClientKey>;
  let fapiClientId: string;
  let alice: UserAgent;

  beforeAll(async () => {
    server = await listeningTestServer(
      {
        openid: { enabled: true },
        // RS256 first: a fapi2 client's default is the first algorithm FAPI 2.0 allows, EdDSA.
        keys: { algorithms: ['RS256', 'EdDSA', 'ES256'] },
        registration: { policy: 'open', perAddressPerMinute: 0 },
        rateLimit: { enabled: false },
      },
      { env: { KEY_ENCRYPTION_KEY: randomBytes(32).toString('base64') } },
    );
    const [es, rs, ps] = await Promise.all([clientKey('ES256'), clientKey('RS256'), clientKey('PS256')]);
    keys = { es, rs, ps };
    fapiClientId = (await fapi2Client()).uid;
    await createUser(server.deps, 'alice');
    alice = await signedIn(server.app, 'alice');
    as = await discovered(server.baseUrl, 'oidc');
  });
  afterAll(() => server?.close());

  const fapi2Client = async (fields: Record<string, string> = {}) =>
    (
      await createClient(server.deps, {
        tokenEndpointAuthMethod: 'private_key_jwt',
        jwks: JSON.stringify(jwksOf(keys.es, keys.rs, keys.ps)),
        profile: 'fapi2',
        ...fields,
      })
    ).application;
  const par = (clientId: string, assertion: string, parameters: Record<string, string>) =>
    server.app.inject({
      method: 'POST',
      url: '/oauth/par',
      headers: FORM,
      payload: form({ ...assertionParams(assertion), client_id: clientId, ...parameters }),
    });
  const assertionBy = (clientId: string, key: ClientKey) => clientAssertion(clientId, key, server.baseUrl);
  const codeRequest = async (extra: Record<string, string> = {}) => ({
    ...(await pkceCodeRequest({ verifier: oauth.generateRandomCodeVerifier(), redirectUri: CALLBACK, state: 'alg', scope: 'openid' })),
    ...extra,
  });
  const requestObject = async (clientId: string, key: ClientKey) => {
    const now = Math.floor(Date.now() / 1000);
    return new SignJWT({ ...(await codeRequest()), client_id: clientId, iss: clientId, aud: server.baseUrl, nbf: now, exp: now + 300 })
      .setProtectedHeader({ alg: key.alg, kid: key.kid, typ: 'oauth-authz-req+jwt' })
      .sign(key.privateKey);
  };
  /** Through consent (once) to the redirect to the client. */
  const approved = async (page: LightMyRequestResponse) => {
    const redirect = page.statusCode === 200 ? await alice.post('/oauth/authorize', hiddenFields(page.body)) : page;
    expect(redirect.statusCode, redirect.body.slice(0, 300)).toBeOneOf([302, 303]);
    return new URL(String(redirect.headers.location));
  };

  /** PAR with DPoP, consent, and the code exchanged with DPoP: the JARM response and the token response. */
  async function fapiFlow(clientId: string, extra: Record<string, string> = {}) {
    const client: oauth.Client = { client_id: clientId };
    const auth = oauth.PrivateKeyJwt({ key: keys.es.privateKey, kid: keys.es.kid });
    const DPoP = oauth.DPoP(client, await oauth.generateKeyPair('ES256'));
    const verifier = oauth.generateRandomCodeVerifier();
    const request = { ...(await pkceCodeRequest({ verifier, redirectUri: CALLBACK, state: 'alg', scope: 'openid' })), ...extra };
    const pushed = await oauth.processPushedAuthorizationResponse(
      as,
      client,
      await oauth.pushedAuthorizationRequest(as, client, auth, request, { ...http, DPoP }),
    );
    const callback = await approved(
      await alice.request({ method: 'GET', url: authorizeUrl({ client_id: clientId, request_uri: pushed.request_uri }) }),
    );
    const response = callback.searchParams.get('response');
    // oauth4webapi checks the JARM response's signature, with an algorithm discovery lists.
    const parameters =
      response === null
        ? oauth.validateAuthResponse(as, client, callback, 'alg')
        : await oauth.validateJwtAuthResponse(as, client, callback, 'alg', http);
    const exchanged = await oauth.authorizationCodeGrantRequest(as, client, auth, parameters, CALLBACK, verifier, { ...http, DPoP });
    expect(exchanged.status).toBe(200);
    const tokens = (await exchanged.json()) as { access_token: string; id_token: string };
    return { response, tokens, DPoP, client };
  }

  it('a DPoP proof of a fapi2 client in RS256 is invalid_dpop_proof naming FAPI 2.0, at the token endpoint and PAR; in ES256 the request goes on', async () => {
    const tokenRequest = async (proofKey: DpopKey) =>
      server.app.inject({
        method: 'POST',
        url: '/oauth/token',
        headers: { ...FORM, dpop: await dpopProof(proofKey, { htu: `${server.baseUrl}/oauth/token` }) },
        payload: form({
          ...assertionParams(await assertionBy(fapiClientId, keys.es)),
          client_id: fapiClientId,
          grant_type: 'authorization_code',
          code: 'not-a-code',
          redirect_uri: CALLBACK,
          code_verifier: oauth.generateRandomCodeVerifier(),
        }),
      });
    const refused = await tokenRequest(await dpopKey('RS256'));
    expect([refused.statusCode, refused.json()]).toEqual([
      400,
      {
        error: 'invalid_dpop_proof',
        error_description: 'FAPI 2.0: the DPoP proof must be signed with one of PS256, ES256, EdDSA, Ed25519 (profile fapi2).',
      },
    ]);
    const judged = await tokenRequest(await dpopKey('ES256'));
    expect(judged.json()).toMatchObject({ error: 'invalid_grant' });
    // At PAR too, where the proof binds the code to come.
    const pushed = await server.app.inject({
      method: 'POST',
      url: '/oauth/par',
      headers: { ...FORM, dpop: await dpopProof(await dpopKey('RS256'), { htu: `${server.baseUrl}/oauth/par` }) },
      payload: form({ ...assertionParams(await assertionBy(fapiClientId, keys.es)), client_id: fapiClientId, ...(await codeRequest()) }),
    });
    expect([pushed.statusCode, pushed.json().error]).toEqual([400, 'invalid_dpop_proof']);
  });

  it('a client assertion signed with RS256 is invalid_client naming FAPI 2.0; PS256 and ES256 are accepted', async () => {
    const refused = await par(fapiClientId, await assertionBy(fapiClientId, keys.rs), await codeRequest());
    expect(refused.statusCode).toBe(401);
    expect(refused.json()).toEqual({ error: 'invalid_client', error_description: ASSERTION_REFUSAL });
    for (const key of [keys.ps, keys.es]) {
      const accepted = await par(fapiClientId, await assertionBy(fapiClientId, key), await codeRequest());
      expect(accepted.statusCode, accepted.body).toBe(201);
    }
  });

  it('a request object signed with RS256 is invalid_request_object naming FAPI 2.0, as JSON at PAR and on our page at /oauth/authorize', async () => {
    const assertion = () => assertionBy(fapiClientId, keys.es);
    const pushed = await par(fapiClientId, await assertion(), { request: await requestObject(fapiClientId, keys.rs) });
    expect(pushed.statusCode).toBe(400);
    expect(pushed.json()).toEqual({ error: 'invalid_request_object', error_description: REQUEST_OBJECT_REFUSAL });
    const direct = await alice.request({
      method: 'GET',
      url: authorizeUrl({ client_id: fapiClientId, request: await requestObject(fapiClientId, keys.rs) }),
    });
    expect(direct.statusCode).toBe(400);
    expect(direct.headers.location).toBeUndefined();
    expect(direct.body).toContain(REQUEST_OBJECT_REFUSAL);
    const ps256 = await par(fapiClientId, await assertion(), { request: await requestObject(fapiClientId, keys.ps) });
    expect(ps256.statusCode, ps256.body).toBe(201);
  });

  it('an ordinary private_key_jwt client keeps RS256 for its assertions and request objects: the profile is per client', async () => {
    const plain = (await createClient(server.deps, { tokenEndpointAuthMethod: 'private_key_jwt', jwks: JSON.stringify(jwksOf(keys.rs)) }))
      .application;
    const pushed = await par(plain.uid, await assertionBy(plain.uid, keys.rs), { request: await requestObject(plain.uid, keys.rs) });
    expect(pushed.statusCode, pushed.body).toBe(201);
  });

  it('with no algorithm registered, its ID token and its JARM response are signed with EdDSA, the first FAPI 2.0 algorithm of keys.algorithms', async () => {
    const { response, tokens } = await fapiFlow(fapiClientId, { response_mode: 'jwt' });
    expect(decodeProtectedHeader(response!).alg).toBe('EdDSA');
    expect(decodeProtectedHeader(tokens.id_token).alg).toBe('EdDSA');
    // A redirected error is a JARM response too: a request that was not pushed, refused by the profile.
    const plain = await alice.request({
      method: 'GET',
      url: authorizeUrl({ client_id: fapiClientId, ...(await codeRequest({ response_mode: 'jwt' })) }),
    });
    expect(plain.statusCode).toBe(302);
    const error = new URL(String(plain.headers.location)).searchParams.get('response')!;
    expect(decodeProtectedHeader(error).alg).toBe('EdDSA');
    expect(decodeJwt(error)).toMatchObject({ error: 'invalid_request', aud: fapiClientId });
  });

  it('a fapi2 client stored with RS256 (before the rule, or edited by hand) still gets EdDSA ID tokens, JARM responses and UserInfo', async () => {
    const legacy = await fapi2Client();
    await server.deps.stores.applicationAdmin.update(legacy.id, {
      idTokenSignedResponseAlg: 'RS256',
      userinfoSignedResponseAlg: 'RS256',
      authorizationSignedResponseAlg: 'RS256',
    });
    const { response, tokens, DPoP, client } = await fapiFlow(legacy.uid, { response_mode: 'jwt' });
    expect(decodeProtectedHeader(response!).alg).toBe('EdDSA');
    expect(decodeProtectedHeader(tokens.id_token).alg).toBe('EdDSA');
    const userinfo = await oauth.userInfoRequest(as, client, tokens.access_token, { ...http, DPoP });
    expect(userinfo.status).toBe(200);
    expect(userinfo.headers.get('content-type')).toContain('application/jwt');
    expect(decodeProtectedHeader(await userinfo.text()).alg).toBe('EdDSA');
  });

  it('an algorithm it registered that FAPI 2.0 allows is kept: ES256', async () => {
    const chosen = await fapi2Client({ idTokenSignedResponseAlg: 'ES256' });
    const { tokens } = await fapiFlow(chosen.uid);
    expect(decodeProtectedHeader(tokens.id_token).alg).toBe('ES256');
  });

  it('the profile refused at the admin create and update with an RS256 signing algorithm, naming the field', async () => {
    for (const field of ['idTokenSignedResponseAlg', 'userinfoSignedResponseAlg', 'authorizationSignedResponseAlg'] as const) {
      const metadata = field.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);
      const refused = await fapi2Client({ [field]: 'RS256' }).catch((error: Error) => error.message);
      expect(refused).toContain(
        `profile fapi2 does not allow ${metadata} RS256 (FAPI 2.0 allows only ES256 or EdDSA for what this server signs).`,
      );
    }
    const made = await fapi2Client();
    const update = await updateApplication(server.deps, made.id, (current) => ({
      name: current.name,
      redirectUri: current.redirectUris.join('\n'),
      scopes: current.scopes.join(' '),
      confidential: current.confidential,
      idTokenSignedResponseAlg: 'RS256',
    })).catch((error: Error) => error.message);
    expect(update).toContain('profile fapi2 does not allow id_token_signed_response_alg RS256');
  });

  it('the profile refused at RFC 7591 registration with authorization_signed_response_alg RS256', async () => {
    const register = (alg: string) =>
      server.app.inject({
        method: 'POST',
        url: '/oauth/register',
        payload: {
          redirect_uris: [CALLBACK],
          token_endpoint_auth_method: 'private_key_jwt',
          jwks: jwksOf(keys.es),
          profile: 'fapi2',
          authorization_signed_response_alg: alg,
        },
      });
    const refused = await register('RS256');
    expect(refused.statusCode).toBe(400);
    expect(refused.json()).toEqual({
      error: 'invalid_client_metadata',
      error_description:
        'profile fapi2 does not allow authorization_signed_response_alg RS256 (FAPI 2.0 allows only ES256 or EdDSA for what this server signs).',
    });
    expect((await register('ES256')).statusCode).toBe(201);
  });
});
