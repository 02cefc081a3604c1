import { createLocalJWKSet, decodeJwt, decodeProtectedHeader, generateKeyPair, importJWK, SignJWT, type JWTPayload } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { IdJagAudienceConfig } from '../../src/config/token-exchange-schema.js';
import type { GrantFlow } from '../../src/config/types.js';
import { activeSigningKey } from '../../src/oauth/keys/signing-keys.js';
import { TOKEN_EXCHANGE_GRANT, TOKEN_TYPES } from '../../src/oauth/exchange/token-exchange-grant-type.js';
import { findAccessToken } from '../../src/oauth/tokens/token-lookup.js';
import type { ApplicationRecord, UserRecord } from '../../src/oauth/store.js';
import { backchannelServer } from '../helpers/backchannel-logout.js';
import { backchannelReceiver, validLogoutToken, type BackchannelReceiver } from '../helpers/backchannel-receiver.js';
import { countRows, createClient, createUser, hiddenFields, signedIn, type UserAgent } from '../helpers/end-user.js';
import { basic, tokenRequest, type Params } from '../helpers/oauth-requests.js';
import { codeFlow, jwksOf } from '../helpers/openid.js';
import { backend } from '../helpers/test-database.js';
import { FORM, form, type TestServer } from '../helpers/test-server.js';

// RFC 8693 with an ID token as the subject token. An ID token stands for a sign-in, not for an authorization: the
// exchange gives at most what the user still authorizes the client for (its live tokens, the authorized applications
// page), nothing once the user revoked the client, and only for a real ID token: a back-channel logout token or any
// other JWT this server signed for the client is refused (RFC 8725 section 3.11). Every refusal is invalid_request
// (section 2.2.2) or invalid_scope, with a description, and stores nothing.

const DOWNSTREAM = 'https://as.example.com';

interface Client {
  application: ApplicationRecord;
  plainSecret: string | null;
}

describe(`RFC 8693 token exchange of an ID token (${backend})`, () => {
  let server: TestServer;
  let receiver: BackchannelReceiver;
  let web: Client;
  let users = 0;

  beforeAll(async () => {
    receiver = await backchannelReceiver();
    server = await backchannelServer(
      {},
      {
        // A pairwise client's ID tokens are refused (below): a pairwise client needs the salt.
        env: { PAIRWISE_SALT: 'token-exchange-pairwise-salt-0123456789' },
        config: {
          grantFlows: ['authorization_code', 'refresh_token', TOKEN_EXCHANGE_GRANT] as GrantFlow[],
          defaultScopes: ['read'],
          optionalScopes: ['write', 'admin'],
          tokenExchange: {
            impersonationClients: ['web'],
            idJagAudiences: [{ audience: DOWNSTREAM, clientId: 'web-at-downstream', clients: ['web'] }] as IdJagAudienceConfig[],
          },
        },
      },
    );
    const created = await createClient(server.deps, { backchannelLogoutUri: receiver.url }, { uid: 'web' });
    const grantTypes = ['authorization_code', 'refresh_token', TOKEN_EXCHANGE_GRANT];
    web = {
      application: (await server.deps.stores.applicationAdmin.update(created.application.id, { grantTypes }))!,
      plainSecret: created.plainSecret,
    };
  });
  afterAll(async () => {
    await server.close();
    await receiver.close();
  });

  /** A new user signed in at web, who approved `scope` on the consent page: the browser and the token response. */
  async function signedInUser(scope: string): Promise<{ user: UserRecord; agent: UserAgent; idToken: string; accessToken: string }> {
    const user = await createUser(server.deps, `id-token-user-${++users}`);
    const agent = await signedIn(server.app, user.username);
    const { response } = await codeFlow(server, agent, web, { scope });
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json().scope).toBe(scope);
    return { user, agent, idToken: response.json().id_token, accessToken: response.json().access_token };
  }
  const exchange = (subjectToken: string, params: Params = {}) =>
    tokenRequest(
      server.app,
      { grant_type: TOKEN_EXCHANGE_GRANT, subject_token: subjectToken, subject_token_type: TOKEN_TYPES.idToken, ...params },
      basic('web', web.plainSecret!),
    );
  const idJag = (subjectToken: string, params: Params = {}) =>
    exchange(subjectToken, { requested_token_type: TOKEN_TYPES.idJag, audience: DOWNSTREAM, ...params });
  const stored = async () => ({
    tokens: await countRows(server, 'oauth_access_tokens'),
    events: Number(
      (
        await server.app.database.sql.query<{ n: number }>(
          "SELECT count(*)::int AS n FROM oauth_audit_events WHERE type = 'token.exchanged'",
        )
      )[0]!.n,
    ),
  });
  async function expectRefused(send: () => Promise<{ statusCode: number; json: () => unknown }>, error: string, description?: string) {
    const before = await stored();
    const response = await send();
    expect(response.statusCode, JSON.stringify(response.json())).toBe(400);
    expect(response.json()).toMatchObject({ error, ...(description !== undefined && { error_description: description }) });
    expect(await stored()).toEqual(before);
  }

  describe('the scopes: those the user authorized the client for, not all the client may hold', () => {
    it('an ID token of an "openid read" sign-in gives read (or, asked for nothing, openid read), never write or admin', async () => {
      const { idToken } = await signedInUser('openid read');
      // The audit's request (H1): the client holds write and admin, the user approved neither.
      await expectRefused(() => exchange(idToken, { scope: 'read write' }), 'invalid_scope');
      await expectRefused(() => exchange(idToken, { scope: 'admin' }), 'invalid_scope');
      const narrowed = await exchange(idToken, { scope: 'read' });
      expect(narrowed.statusCode, narrowed.body).toBe(200);
      expect(narrowed.json()).toMatchObject({ scope: 'read', issued_token_type: TOKEN_TYPES.accessToken });
      const all = await exchange(idToken);
      expect(all.statusCode, all.body).toBe(200);
      expect(all.json().scope.split(' ').sort()).toEqual(['openid', 'read']);
    });

    it("the exchanged token carries the ID token's sign-in (auth_time, amr, acr), for an API's step-up check (RFC 9470)", async () => {
      const { idToken } = await signedInUser('openid read');
      const claims = decodeJwt(idToken);
      expect(claims).toMatchObject({ auth_time: expect.any(Number), amr: ['pwd'] });
      const exchanged = await exchange(idToken, { scope: 'read' });
      expect(exchanged.statusCode, exchanged.body).toBe(200);
      const token = (await findAccessToken(server.deps, exchanged.json().access_token))!;
      expect({ authTime: token.authTime, amr: token.amr, acr: token.acr }).toEqual({
        authTime: new Date((claims.auth_time as number) * 1000),
        amr: claims.amr,
        acr: claims.acr ?? null,
      });
    });

    it('what the user approved later for the same client counts too: its live tokens are the authorization', async () => {
      const { agent, idToken } = await signedInUser('openid read');
      const { response } = await codeFlow(server, agent, web, { scope: 'openid write' });
      expect(response.statusCode, response.body).toBe(200);
      const widened = await exchange(idToken, { scope: 'read write' });
      expect(widened.statusCode, widened.body).toBe(200);
      expect(widened.json().scope).toBe('read write');
      await expectRefused(() => exchange(idToken, { scope: 'admin' }), 'invalid_scope');
    });

    it('an ID-JAG keeps its scope as asked (the downstream server bounds it), for a user who authorizes the client', async () => {
      const { idToken } = await signedInUser('openid read');
      const response = await idJag(idToken, { scope: 'mcp:tools' });
      expect(response.statusCode, response.body).toBe(200);
      expect(response.json()).toMatchObject({ issued_token_type: TOKEN_TYPES.idJag, token_type: 'N_A', scope: 'mcp:tools' });
    });
  });

  describe('the user revoked the client: its ID tokens no longer speak for the user', () => {
    const NO_LONGER = 'The user no longer authorizes this client: it holds no live token of theirs.';

    it('after Revoke on the authorized applications page, neither an access token nor an ID-JAG is issued for its ID token', async () => {
      const { agent, idToken } = await signedInUser('openid read write');
      expect((await exchange(idToken, { scope: 'read' })).statusCode).toBe(200);
      expect((await idJag(idToken)).statusCode).toBe(200);
      const INDEX = '/oauth/authorized_applications';
      const page = await agent.request({ method: 'GET', url: INDEX });
      const fields = hiddenFields(page.body.slice(page.body.indexOf(`id="application_${web.application.id}"`)), 0);
      const revoked = await agent.request({ method: 'POST', url: `${INDEX}/${web.application.id}`, headers: FORM, payload: form(fields) });
      expect(revoked.statusCode).toBe(302);
      await receiver.next();
      // The ID token itself is still unexpired and well signed: what changed is the user's authorization.
      expect(decodeJwt(idToken).exp! * 1000).toBeGreaterThan(Date.now());
      await expectRefused(() => exchange(idToken, { scope: 'read write' }), 'invalid_request', NO_LONGER);
      await expectRefused(() => exchange(idToken), 'invalid_request', NO_LONGER);
      await expectRefused(() => idJag(idToken, { scope: 'read write' }), 'invalid_request', NO_LONGER);
    });

    it('so is one whose tokens at the client are all dead: the access token expired, no usable refresh token', async () => {
      const { user, idToken } = await signedInUser('openid read');
      await server.app.database.sql.query(
        "UPDATE oauth_access_tokens SET refresh_token = NULL, created_at = created_at - interval '1 day' WHERE resource_owner_id = $1",
        [user.id],
      );
      await expectRefused(() => exchange(idToken), 'invalid_request', NO_LONGER);
      await expectRefused(() => idJag(idToken), 'invalid_request', NO_LONGER);
    });
  });

  describe('only an ID token: not a logout token or another JWT signed by this server for the client', () => {
    it("the back-channel logout token of the user's sign-out (typ logout+jwt, events) is refused, for an access token and an ID-JAG", async () => {
      const { agent, idToken } = await signedInUser('openid read');
      const signedOut = await agent.post('/logout', {}, '/logout');
      expect(signedOut.statusCode).toBe(303);
      const { logoutToken } = await receiver.next();
      // A real logout token: this server's key, iss, aud the client, sub the user, iat, exp, events.
      const claims = await validLogoutToken(logoutToken!, {
        keys: createLocalJWKSet(await jwksOf(server)),
        issuer: server.config.baseUrl.replace(/\/+$/, ''),
        clientId: 'web',
      });
      expect(claims.sub).toBe(decodeJwt(idToken).sub);
      const description = 'The subject token is not an ID token (its typ is logout+jwt).';
      await expectRefused(() => exchange(logoutToken!, { scope: 'read' }), 'invalid_request', description);
      await expectRefused(() => idJag(logoutToken!), 'invalid_request', description);
      // The user's sign-out does not revoke the client's tokens: its ID token is still exchanged.
      expect((await exchange(idToken, { scope: 'read' })).statusCode).toBe(200);
    });

    describe('an ID token-shaped JWT signed with the server key', () => {
      let sub: string;
      const issuer = () => server.config.baseUrl.replace(/\/+$/, '');
      const idTokenClaims = (claims: JWTPayload) => {
        const now = Math.floor(Date.now() / 1000);
        return { iss: issuer(), aud: 'web', sub, iat: now, exp: now + 300, ...claims };
      };
      /** Signed by the server's signer, which writes typ JWT unless told another. */
      const signed = (claims: JWTPayload, typ?: string) => server.deps.signer.sign(idTokenClaims(claims), typ === undefined ? {} : { typ });
      /** Signed with the server's current key by jose directly, without a typ header. */
      const signedWithoutTyp = async (claims: JWTPayload) => {
        const key = activeSigningKey(await server.deps.stores.signingKeys.list(), 'RS256', new Date())!;
        const privateKey = await importJWK((await server.deps.stores.signingKeys.privateJwk(key.kid))!, key.alg);
        return new SignJWT(idTokenClaims(claims)).setProtectedHeader({ alg: key.alg, kid: key.kid }).sign(privateKey);
      };
      beforeAll(async () => {
        sub = decodeJwt((await signedInUser('openid read')).idToken).sub!;
      });

      it.each([
        ['typ logout+jwt', () => signed({}, 'logout+jwt'), 'The subject token is not an ID token (its typ is logout+jwt).'],
        ['typ at+jwt', () => signed({}, 'at+jwt'), 'The subject token is not an ID token (its typ is at+jwt).'],
        [
          'typ oauth-id-jag+jwt',
          () => signed({}, 'oauth-id-jag+jwt'),
          'The subject token is not an ID token (its typ is oauth-id-jag+jwt).',
        ],
        [
          'typ JWT with an events claim (a logout token by its claims)',
          () => signed({ events: { 'http://schemas.openid.net/event/backchannel-logout': {} } }),
          'The subject token is not an ID token (it has an events claim: a logout token).',
        ],
        ['no iat', () => signed({ iat: undefined }), 'The subject token is not an ID token (it has no iat).'],
      ])('%s is refused (invalid_request)', async (_name, make, description) => {
        const token = await make();
        await expectRefused(() => exchange(token, { scope: 'read' }), 'invalid_request', description);
        await expectRefused(() => idJag(token), 'invalid_request', description);
      });

      /** Signed as `signedWithoutTyp`, but with a key of its own under the server's current kid: a forgery. */
      const forged = async (claims: JWTPayload) => {
        const { kid } = activeSigningKey(await server.deps.stores.signingKeys.list(), 'RS256', new Date())!;
        const { privateKey } = await generateKeyPair('RS256');
        return new SignJWT(idTokenClaims(claims)).setProtectedHeader({ alg: 'RS256', kid }).sign(privateKey);
      };
      const base64url = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
      const seconds = () => Math.floor(Date.now() / 1000);

      it.each([
        ['a string that is no JWT', async () => 'not-an-id-token'],
        ['expired', () => signed({ iat: seconds() - 600, exp: seconds() - 300 })],
        ['issued to another client (aud)', () => signed({ aud: 'another-client' })],
        ['issued by another server (iss)', () => signed({ iss: 'https://elsewhere.example' })],
        ['without an exp', () => signed({ exp: undefined })],
        ["signed by another key under the server's kid", () => forged({})],
        ['unsigned (alg none)', async () => `${base64url({ alg: 'none' })}.${base64url(idTokenClaims({}))}.`],
      ])('%s is refused (invalid_request), with one description for every way', async (_name, make) => {
        const token = await make();
        const description = 'The subject token is not an unexpired ID token this server issued to this client.';
        await expectRefused(() => exchange(token, { scope: 'read' }), 'invalid_request', description);
        await expectRefused(() => idJag(token), 'invalid_request', description);
      });

      it('one whose sub is not a string is refused (invalid_request)', async () => {
        const token = await signed({ sub: 42 as unknown as string });
        await expectRefused(() => exchange(token, { scope: 'read' }), 'invalid_request', 'The subject token has no sub.');
      });

      it("a pairwise client's own ID token is refused: its sub cannot be turned back into a user", async () => {
        const created = await createClient(server.deps, { subjectType: 'pairwise' }, { uid: 'pairwise-web' });
        const grantTypes = ['authorization_code', TOKEN_EXCHANGE_GRANT];
        await server.deps.stores.applicationAdmin.update(created.application.id, { grantTypes });
        const token = await signed({ aud: 'pairwise-web' });
        const description = "A pairwise client's ID tokens cannot be exchanged.";
        const send = () =>
          tokenRequest(
            server.app,
            { grant_type: TOKEN_EXCHANGE_GRANT, subject_token: token, subject_token_type: TOKEN_TYPES.idToken, scope: 'read' },
            basic('pairwise-web', created.plainSecret!),
          );
        await expectRefused(send, 'invalid_request', description);
      });

      it('typ JWT in any case (this server puts JWT in its ID tokens), application/jwt, or no typ at all is an ID token', async () => {
        expect(decodeProtectedHeader((await signedInUser('openid read')).idToken).typ).toBe('JWT');
        const withoutTyp = await signedWithoutTyp({});
        expect(decodeProtectedHeader(withoutTyp).typ).toBeUndefined();
        const tokens = [await signed({}, 'JWT'), await signed({}, 'jwt'), await signed({}, 'application/JWT'), withoutTyp];
        for (const token of tokens) {
          const response = await exchange(token, { scope: 'read' });
          expect(response.statusCode, response.body).toBe(200);
        }
      });
    });
  });
});
