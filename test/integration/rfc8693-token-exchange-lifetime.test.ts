import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TrustedIssuerConfig } from '../../src/config/trusted-issuers-schema.js';
import type { GrantFlow } from '../../src/config/types.js';
import { TOKEN_EXCHANGE_GRANT, TOKEN_TYPES } from '../../src/oauth/exchange/token-exchange-grant-type.js';
import type { ApplicationRecord, UserRecord } from '../../src/oauth/store.js';
import { createClient, createUser } from '../helpers/end-user.js';
import { issueToken } from '../helpers/factories.js';
import { basic, introspectRequest, tokenRequest, type Params } from '../helpers/oauth-requests.js';
import { createJwtResource, openIdServer } from '../helpers/openid.js';
import { backend } from '../helpers/test-database.js';
import type { TestServer } from '../helpers/test-server.js';
import { assertionClaims, assertionIssuer, type AssertionIssuer } from '../helpers/trusted-issuer.js';

// RFC 8693 section 2.1 leaves the issued token's lifetime to the server: here it never outlives its subject token (an
// access token's expiry, a trusted JWT's exp), so that exchanging the exchanged token again, by any client, never
// extends a user's access; a subject without expiry leaves the usual lifetime. expires_in says the same as the token.

const JWT_API = 'https://api.example.com';
const IDP = 'https://idp.example.com';

interface Client {
  application: ApplicationRecord;
  plainSecret: string | null;
}

describe(`RFC 8693 token exchange: the exchanged token's lifetime (${backend})`, () => {
  let server: TestServer;
  let idp: AssertionIssuer;
  let alice: UserRecord;
  let web: Client;
  let impersonator: Client;

  beforeAll(async () => {
    idp = await assertionIssuer();
    server = await openIdServer({
      config: {
        grantFlows: ['authorization_code', 'client_credentials', TOKEN_EXCHANGE_GRANT] as GrantFlow[],
        defaultScopes: ['read'],
        accessTokenExpiresIn: 7200,
        trustedIssuers: [
          { issuer: IDP, jwksUri: idp.jwksUri, clients: ['impersonator'], scopes: ['read'], userMatch: 'email' },
        ] as TrustedIssuerConfig[],
        tokenExchange: { impersonationClients: ['impersonator'] },
      },
    });
    web = await createClient(server.deps, {}, { uid: 'web' });
    const created = await createClient(server.deps, {}, { uid: 'impersonator' });
    const grantTypes = [TOKEN_EXCHANGE_GRANT];
    impersonator = {
      application: (await server.deps.stores.applicationAdmin.update(created.application.id, { grantTypes }))!,
      plainSecret: created.plainSecret,
    };
    alice = await createUser(server.deps, 'alice');
    await server.deps.stores.userAdmin.updateClaims(alice.id, { email: 'alice@example.com', emailVerified: true }, new Date());
    // Its tokens live 900 s, longer than the subject tokens below: the subject's expiry still wins.
    await createJwtResource(server.deps, JWT_API, ['read']);
  });
  afterAll(async () => {
    await server.close();
    await idp.close();
  });

  /** Alice's token at web (for any API), issued now, living `expiresIn` seconds (null: never), and its exp as introspection says. */
  async function subjectToken(expiresIn: number | null) {
    const issued = await issueToken(server.deps, {
      application: web.application,
      resourceOwnerId: alice.id,
      grantType: 'authorization_code',
      expiresIn,
    });
    const exp = expiresIn === null ? null : Math.floor(issued.record.createdAt.getTime() / 1000) + expiresIn;
    return { token: issued.accessToken, exp };
  }
  const exchange = (params: Params) =>
    tokenRequest(
      server.app,
      { grant_type: TOKEN_EXCHANGE_GRANT, subject_token_type: TOKEN_TYPES.accessToken, ...params },
      basic('impersonator', impersonator.plainSecret!),
    );
  const introspect = async (token: string) =>
    (await introspectRequest(server.app, { token }, basic('impersonator', impersonator.plainSecret!))).json();
  const seconds = () => Math.floor(server.clock.now.getTime() / 1000);

  it('an access token subject expiring in 600 s gives a token that expires with it, and expires_in says so', async () => {
    const { token: subject, exp: subjectExp } = await subjectToken(600);
    const response = await exchange({ subject_token: subject });
    expect(response.statusCode, response.body).toBe(200);
    const { access_token: token, expires_in: expiresIn } = response.json();
    expect(expiresIn).toBeLessThanOrEqual(600);
    const { iat, exp } = await introspect(token);
    // Whole seconds rounded down: at most 2 s short of the subject's expiry (however slow the exchange), never after it.
    expect(exp).toBeLessThanOrEqual(subjectExp!);
    expect(exp).toBeGreaterThanOrEqual(subjectExp! - 2);
    expect(exp - iat).toBe(expiresIn);
  });

  it('re-exchanging the exchanged token later cannot extend access: every generation ends with the first subject', async () => {
    const { token: subject, exp: subjectExp } = await subjectToken(600);
    const first = (await exchange({ subject_token: subject })).json();
    server.clock.advance(300);
    const second = await exchange({ subject_token: first.access_token });
    expect(second.statusCode, second.body).toBe(200);
    expect(second.json().expires_in).toBeLessThanOrEqual(300);
    expect((await introspect(second.json().access_token)).exp).toBeLessThanOrEqual(subjectExp!);
    server.clock.advance(301);
    // All three are expired now, and the last one can no longer be exchanged.
    for (const token of [subject, first.access_token, second.json().access_token])
      expect(await introspect(token)).toEqual({ active: false });
    const third = await exchange({ subject_token: second.json().access_token });
    expect(third.json()).toMatchObject({
      error: 'invalid_request',
      error_description: 'The subject token is not an active access token of this server.',
    });
  });

  it('narrowed to a resource whose JWT access tokens live 900 s, the token still expires with its subject (its exp claim too)', async () => {
    const { token: subject, exp: subjectExp } = await subjectToken(120);
    const response = await exchange({ subject_token: subject, resource: JWT_API });
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json().expires_in).toBeLessThanOrEqual(120);
    expect(decodeJwt(response.json().access_token).exp).toBeLessThanOrEqual(subjectExp!);
  });

  it('a subject token that never expires leaves the usual lifetime', async () => {
    const response = await exchange({ subject_token: (await subjectToken(null)).token });
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json().expires_in).toBe(7200);
  });

  it("a trusted issuer's JWT as subject: the token expires with the JWT's exp", async () => {
    const aud = server.config.baseUrl.replace(/\/+$/, '');
    const exp = seconds() + 120;
    const jwt = await idp.sign(
      assertionClaims({ iss: IDP, aud, sub: 'alice-at-idp', email: 'alice@example.com', email_verified: true, exp }),
    );
    const response = await exchange({ subject_token: jwt, subject_token_type: TOKEN_TYPES.jwt });
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json().expires_in).toBeLessThanOrEqual(120);
    expect((await introspect(response.json().access_token)).exp).toBeLessThanOrEqual(exp);
  });
});
