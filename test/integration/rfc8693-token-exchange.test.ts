import { createLocalJWKSet, decodeJwt, jwtVerify } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { IdJagAudienceConfig } from '../../src/config/token-exchange-schema.js';
import type { TrustedIssuerConfig } from '../../src/config/trusted-issuers-schema.js';
import type { GrantFlow } from '../../src/config/types.js';
import { TOKEN_EXCHANGE_GRANT, TOKEN_TYPES } from '../../src/oauth/exchange/token-exchange-grant-type.js';
import type { ApplicationRecord, UserRecord } from '../../src/oauth/store.js';
import { countRows, createClient, createUser, signedIn } from '../helpers/end-user.js';
import { dpopKey, dpopProof } from '../helpers/dpop.js';
import { issueToken } from '../helpers/factories.js';
import { basic, introspectRequest, revokeRequest, tokenRequest, type Params } from '../helpers/oauth-requests.js';
import { codeFlow, createJwtResource, jwksOf, openIdServer } from '../helpers/openid.js';
import { backend } from '../helpers/test-database.js';
import { assertionClaims, assertionIssuer, type AssertionIssuer } from '../helpers/trusted-issuer.js';
import type { TestServer } from '../helpers/test-server.js';

// RFC 8693 token exchange (issue 34 item 4): an access token of this server exchanged for a narrower one, by
// delegation (actor_token, recorded as act, nested for chains) or, for a client allowed it, impersonation; an ID token
// exchanged for an ID-JAG aimed at a listed downstream authorization server. Every refusal has its RFC error code and
// stores nothing.

const API = 'https://api.example.com';
const OTHER_API = 'https://other.example.com';
const DOWNSTREAM = 'https://as.example.com';
const IDP = 'https://idp.example.com';

interface Client {
  application: ApplicationRecord;
  plainSecret: string | null;
}

describe(`RFC 8693 token exchange (${backend})`, () => {
  let server: TestServer;
  let alice: UserRecord;
  let web: Client;
  let service: Client;
  let downstreamService: Client;
  let impersonator: Client;
  let bystander: Client;
  let idp: AssertionIssuer;

  beforeAll(async () => {
    idp = await assertionIssuer();
    server = await openIdServer({
      config: {
        trustedIssuers: [
          { issuer: IDP, jwksUri: idp.jwksUri, clients: ['impersonator'], scopes: ['read', 'write'], userMatch: 'email' },
        ] as TrustedIssuerConfig[],
        grantFlows: ['authorization_code', 'client_credentials', 'refresh_token', TOKEN_EXCHANGE_GRANT] as GrantFlow[],
        defaultScopes: ['read'],
        optionalScopes: ['write', 'admin'],
        tokenExchange: {
          impersonationClients: ['impersonator'],
          idJagAudiences: [
            { audience: DOWNSTREAM, clientId: 'agent-at-downstream', clients: ['web'], resource: `${DOWNSTREAM}/mcp` },
          ] as IdJagAudienceConfig[],
        },
      },
    });
    const exchanging = async (uid: string, grantTypes: string[] = [TOKEN_EXCHANGE_GRANT, 'client_credentials']) => {
      const client = await createClient(server.deps, {}, { uid });
      const application = (await server.deps.stores.applicationAdmin.update(client.application.id, { grantTypes }))!;
      return { application, plainSecret: client.plainSecret };
    };
    web = await exchanging('web', ['authorization_code', TOKEN_EXCHANGE_GRANT]);
    service = await exchanging('service');
    downstreamService = await exchanging('downstream-service');
    impersonator = await exchanging('impersonator');
    bystander = await exchanging('bystander', ['client_credentials']);
    alice = await createUser(server.deps, 'alice');
    await server.deps.stores.userAdmin.updateClaims(alice.id, { email: 'alice@example.com', emailVerified: true }, new Date());
    await createJwtResource(server.deps, API, ['read', 'write']);
    await createJwtResource(server.deps, OTHER_API, ['read', 'write']);
  });
  afterAll(async () => {
    await server.close();
    await idp.close();
  });

  const auth = ({ application, plainSecret }: Client) => basic(application.uid, plainSecret!);
  /** Alice's token at `web`, as the code flow would have issued it: the subject token of most exchanges. */
  const aliceToken = async (scopes = ['read', 'write'], audience = [API, OTHER_API]) =>
    (
      await issueToken(server.deps, {
        application: web.application,
        resourceOwnerId: alice.id,
        scopes,
        grantType: 'authorization_code',
        audience: { uris: audience, resources: await server.deps.stores.resources.findByUris(audience) },
      })
    ).accessToken;
  /** A client's own token (client_credentials): the actor token of a delegation. */
  const ownToken = async (client: Client) => (await issueToken(server.deps, { application: client.application })).accessToken;
  const exchange = (client: Client, params: Params) =>
    tokenRequest(server.app, { grant_type: TOKEN_EXCHANGE_GRANT, subject_token_type: TOKEN_TYPES.accessToken, ...params }, auth(client));
  /** Introspected by the client that holds the token (the default introspection policy lets it). */
  const introspect = async (token: string, holder: Client = service) =>
    (await introspectRequest(server.app, { token }, auth(holder))).json();
  const stored = async () => ({
    tokens: await countRows(server, 'oauth_access_tokens'),
    events: await exchangeEvents(),
    // A trusted JWT's jti, recorded once it is redeemed (the DPoP proofs' table).
    jtis: Number((await server.app.database.sql.query<{ n: number }>('SELECT count(*)::int AS n FROM oauth_dpop_proofs'))[0]!.n),
  });
  const exchangeEvents = async () =>
    Number(
      (
        await server.app.database.sql.query<{ n: number }>(
          "SELECT count(*)::int AS n FROM oauth_audit_events WHERE type = 'token.exchanged'",
        )
      )[0]!.n,
    );
  async function expectRefusedStoringNothing(send: () => Promise<{ statusCode: number; json: () => unknown }>, error: string) {
    const before = await stored();
    const response = await send();
    expect(response.statusCode, JSON.stringify(response.json())).toBe(400);
    expect(response.json()).toMatchObject({ error });
    expect(await stored()).toEqual(before);
  }

  it('delegation: an access token for a narrower one, the actor as act in the JWT and at introspection, an audit event', async () => {
    const subject = await aliceToken();
    const response = await exchange(service, {
      subject_token: subject,
      actor_token: await ownToken(service),
      actor_token_type: TOKEN_TYPES.accessToken,
      scope: 'read',
      audience: API,
    });
    expect(response.statusCode, response.body).toBe(200);
    const body = response.json();
    expect(body).toMatchObject({ token_type: 'Bearer', scope: 'read', issued_token_type: TOKEN_TYPES.accessToken });
    expect(body.refresh_token).toBeUndefined();
    const act = { sub: 'service', client_id: 'service' };
    expect(decodeJwt(body.access_token)).toMatchObject({ sub: alice.subject, client_id: 'service', aud: API, scope: 'read', act });
    expect(await introspect(body.access_token)).toMatchObject({ active: true, sub: alice.subject, client_id: 'service', aud: API, act });
    const [event] = await server.app.database.sql.query<{ client_id: string; user_id: number; details: string }>(
      "SELECT client_id, user_id, details FROM oauth_audit_events WHERE type = 'token.exchanged' ORDER BY id DESC LIMIT 1",
    );
    expect(event).toMatchObject({ client_id: 'service' });
    expect(Number(event!.user_id)).toBe(alice.id);
    expect(JSON.parse(event!.details)).toMatchObject({ actor: 'service', audience: [API], subject_token_type: TOKEN_TYPES.accessToken });
  });

  it('a chain: the exchanged token exchanged again by another client nests the earlier actor under act', async () => {
    const first = (
      await exchange(service, {
        subject_token: await aliceToken(),
        actor_token: await ownToken(service),
        actor_token_type: TOKEN_TYPES.accessToken,
      })
    ).json();
    const second = await exchange(downstreamService, {
      subject_token: first.access_token,
      actor_token: await ownToken(downstreamService),
      actor_token_type: TOKEN_TYPES.accessToken,
      resource: OTHER_API,
    });
    expect(second.statusCode, second.body).toBe(200);
    const act = { sub: 'downstream-service', client_id: 'downstream-service', act: { sub: 'service', client_id: 'service' } };
    expect(decodeJwt(second.json().access_token)).toMatchObject({ sub: alice.subject, aud: OTHER_API, act });
    expect(await introspect(second.json().access_token, downstreamService)).toMatchObject({ active: true, act });
  });

  it('a wider scope than the subject token has is invalid_scope, and nothing is stored', async () => {
    const subject = await aliceToken(['read']);
    const actor = await ownToken(service);
    await expectRefusedStoringNothing(
      () =>
        exchange(service, { subject_token: subject, actor_token: actor, actor_token_type: TOKEN_TYPES.accessToken, scope: 'read write' }),
      'invalid_scope',
    );
  });

  it("an audience outside the subject token's is invalid_target, and nothing is stored", async () => {
    const subject = await aliceToken(['read'], [API]);
    const actor = await ownToken(service);
    await expectRefusedStoringNothing(
      () =>
        exchange(service, { subject_token: subject, actor_token: actor, actor_token_type: TOKEN_TYPES.accessToken, audience: OTHER_API }),
      'invalid_target',
    );
  });

  /** invalid_request with this description, twice over (the refusal is no accident of the first try), storing nothing. */
  const refusedWith = async (client: Client, params: Params, description: string) => {
    await expectRefusedStoringNothing(() => exchange(client, params), 'invalid_request');
    expect((await exchange(client, params)).json().error_description).toBe(description);
  };

  it('a requested_token_type it does not issue, or an ID-JAG for a subject that is no ID token or with an actor: invalid_request, with why', async () => {
    const subject = await aliceToken();
    const refreshType = 'urn:ietf:params:oauth:token-type:refresh_token';
    await refusedWith(
      service,
      { subject_token: subject, requested_token_type: refreshType },
      `The requested_token_type must be ${TOKEN_TYPES.accessToken} or ${TOKEN_TYPES.idJag}.`,
    );
    const idJagOf = { requested_token_type: TOKEN_TYPES.idJag, audience: DOWNSTREAM };
    await refusedWith(
      web,
      { subject_token: subject, ...idJagOf },
      `An ID-JAG is issued for a subject_token_type of ${TOKEN_TYPES.idToken}.`,
    );
    await refusedWith(
      web,
      { subject_token: 'an.id.token', subject_token_type: TOKEN_TYPES.idToken, actor_token: await ownToken(web), ...idJagOf },
      'An ID-JAG carries no actor: send no actor_token.',
    );
  });

  it('actor_token_type goes with an actor_token and names an access token; a chain of actors ends at five', async () => {
    const subject = await aliceToken();
    const actor = await ownToken(service);
    const ACCESS = TOKEN_TYPES.accessToken;
    await refusedWith(service, { subject_token: subject, actor_token_type: ACCESS }, 'actor_token_type is sent only with an actor_token.');
    await refusedWith(service, { subject_token: subject, actor_token: actor }, 'Missing required parameter: actor_token_type.');
    await refusedWith(
      service,
      { subject_token: subject, actor_token: actor, actor_token_type: TOKEN_TYPES.idToken },
      `The actor_token_type must be ${ACCESS}.`,
    );
    let token = subject;
    for (let depth = 1; depth <= 5; depth += 1) {
      const delegated = await exchange(service, { subject_token: token, actor_token: await ownToken(service), actor_token_type: ACCESS });
      expect(delegated.statusCode, delegated.body).toBe(200);
      token = delegated.json().access_token;
    }
    await refusedWith(
      service,
      { subject_token: token, actor_token: await ownToken(service), actor_token_type: ACCESS },
      'The subject token has too many actors (at most 5).',
    );
  });

  it('an actor token of another client is invalid_request, and nothing is stored', async () => {
    const subject = await aliceToken();
    const othersActor = await ownToken(downstreamService);
    await expectRefusedStoringNothing(
      () => exchange(service, { subject_token: subject, actor_token: othersActor, actor_token_type: TOKEN_TYPES.accessToken }),
      'invalid_request',
    );
  });

  it('impersonation (no actor_token) is refused for a client not allowed it and gives a token without act to one that is', async () => {
    const subject = await aliceToken();
    await expectRefusedStoringNothing(() => exchange(service, { subject_token: subject }), 'unauthorized_client');
    const response = await exchange(impersonator, { subject_token: subject, scope: 'write' });
    expect(response.statusCode, response.body).toBe(200);
    const claims = decodeJwt(response.json().access_token);
    expect(claims).toMatchObject({ sub: alice.subject, client_id: 'impersonator', scope: 'write' });
    expect(claims.act).toBeUndefined();
    expect(await introspect(response.json().access_token, impersonator)).toMatchObject({ active: true, sub: alice.subject });
    expect((await introspect(response.json().access_token, impersonator)).act).toBeUndefined();
    const [event] = await server.app.database.sql.query<{ client_id: string; details: string }>(
      "SELECT client_id, details FROM oauth_audit_events WHERE type = 'token.exchanged' ORDER BY id DESC LIMIT 1",
    );
    expect(event!.client_id).toBe('impersonator');
    expect(JSON.parse(event!.details)).toMatchObject({ actor: null });
  });

  it('a revoked or unknown subject token is invalid_request; a client without the grant type is unauthorized_client, as is a public client', async () => {
    const subject = await aliceToken();
    const actor = await ownToken(service);
    const revoked = await aliceToken();
    expect((await revokeRequest(server.app, { token: revoked }, auth(web))).statusCode).toBe(200);
    await expectRefusedStoringNothing(
      () => exchange(service, { subject_token: revoked, actor_token: actor, actor_token_type: TOKEN_TYPES.accessToken }),
      'invalid_request',
    );
    await expectRefusedStoringNothing(
      () => exchange(service, { subject_token: 'no-such-token', actor_token: actor, actor_token_type: TOKEN_TYPES.accessToken }),
      'invalid_request',
    );
    await expectRefusedStoringNothing(
      () => exchange(bystander, { subject_token: subject, actor_token: actor, actor_token_type: TOKEN_TYPES.accessToken }),
      'unauthorized_client',
    );
    await expectRefusedStoringNothing(
      () => exchange(service, { subject_token: subject, subject_token_type: 'urn:example:saml' }),
      'invalid_request',
    );
    // A public client, even one whose grant types name the grant.
    const publicClient = await createClient(server.deps, { confidential: false }, { uid: 'public-app' });
    await server.deps.stores.applicationAdmin.update(publicClient.application.id, { grantTypes: [TOKEN_EXCHANGE_GRANT] });
    const fromPublicClient = () =>
      tokenRequest(server.app, {
        grant_type: TOKEN_EXCHANGE_GRANT,
        client_id: 'public-app',
        subject_token: subject,
        subject_token_type: TOKEN_TYPES.accessToken,
      });
    await expectRefusedStoringNothing(fromPublicClient, 'unauthorized_client');
    expect((await fromPublicClient()).json().error_description).toBe('Token exchange is for confidential clients.');
  });

  it('a DPoP-bound subject token is exchanged only with a proof by its key (invalid_request without one)', async () => {
    const key = await dpopKey();
    const bound = (
      await issueToken(server.deps, {
        application: web.application,
        resourceOwnerId: alice.id,
        scopes: ['read'],
        grantType: 'authorization_code',
        dpopJkt: key.jkt,
      })
    ).accessToken;
    await expectRefusedStoringNothing(() => exchange(impersonator, { subject_token: bound }), 'invalid_request');
    const htu = `${server.config.baseUrl.replace(/\/+$/, '')}/oauth/token`;
    const response = await tokenRequest(
      server.app,
      { grant_type: TOKEN_EXCHANGE_GRANT, subject_token: bound, subject_token_type: TOKEN_TYPES.accessToken },
      { ...auth(impersonator), dpop: await dpopProof(key, { htu }) },
    );
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json()).toMatchObject({ token_type: 'DPoP', issued_token_type: TOKEN_TYPES.accessToken });
  });

  it('a DPoP-bound actor token is accepted only with a proof by its key (invalid_request without one), as a subject token', async () => {
    const key = await dpopKey();
    const boundActor = (await issueToken(server.deps, { application: service.application, dpopJkt: key.jkt })).accessToken;
    const params = { subject_token: await aliceToken(), actor_token: boundActor, actor_token_type: TOKEN_TYPES.accessToken };
    await expectRefusedStoringNothing(() => exchange(service, params), 'invalid_request');
    expect((await exchange(service, params)).json().error_description).toBe(
      "The actor token is DPoP-bound: the request's DPoP proof must be by its key.",
    );
    const htu = `${server.config.baseUrl.replace(/\/+$/, '')}/oauth/token`;
    const response = await tokenRequest(
      server.app,
      { grant_type: TOKEN_EXCHANGE_GRANT, subject_token_type: TOKEN_TYPES.accessToken, ...params },
      { ...auth(service), dpop: await dpopProof(key, { htu }) },
    );
    expect(response.statusCode, response.body).toBe(200);
    expect(decodeJwt(response.json().access_token).act).toMatchObject({ client_id: 'service' });
  });

  it("a trusted issuer's JWT as subject: a token for the user it names, its jti used once", async () => {
    const aud = server.config.baseUrl.replace(/\/+$/, '');
    const jwt = await idp.sign(assertionClaims({ iss: IDP, aud, sub: 'alice-at-idp', email: 'alice@example.com', email_verified: true }));
    const response = await exchange(impersonator, { subject_token: jwt, subject_token_type: TOKEN_TYPES.jwt, scope: 'read' });
    expect(response.statusCode, response.body).toBe(200);
    expect(await introspect(response.json().access_token, impersonator)).toMatchObject({ active: true, sub: alice.subject, scope: 'read' });
    await expectRefusedStoringNothing(
      () => exchange(impersonator, { subject_token: jwt, subject_token_type: TOKEN_TYPES.jwt }),
      'invalid_request',
    );
    // Its issuer does not list this client.
    const other = await idp.sign(assertionClaims({ iss: IDP, aud, sub: 'alice-at-idp', email: 'alice@example.com', email_verified: true }));
    const actor = await ownToken(service);
    await expectRefusedStoringNothing(
      () =>
        exchange(service, {
          subject_token: other,
          subject_token_type: TOKEN_TYPES.jwt,
          actor_token: actor,
          actor_token_type: TOKEN_TYPES.accessToken,
        }),
      'invalid_request',
    );
  });

  it("an ID token exchanged for an ID-JAG for a listed downstream server, signed with this server's keys", async () => {
    const agent = await signedIn(server.app, 'alice');
    const { response } = await codeFlow(server, agent, web, { scope: 'openid read' });
    expect(response.statusCode, response.body).toBe(200);
    const idToken = response.json().id_token as string;
    const idJagRequest = (params: Params = {}, client = web) =>
      tokenRequest(
        server.app,
        {
          grant_type: TOKEN_EXCHANGE_GRANT,
          subject_token: idToken,
          subject_token_type: TOKEN_TYPES.idToken,
          requested_token_type: TOKEN_TYPES.idJag,
          audience: DOWNSTREAM,
          scope: 'mcp:tools',
          ...params,
        },
        auth(client),
      );
    const before = await countRows(server, 'oauth_access_tokens');
    const issued = await idJagRequest();
    expect(issued.statusCode, issued.body).toBe(200);
    const body = issued.json();
    expect(body).toMatchObject({ issued_token_type: TOKEN_TYPES.idJag, token_type: 'N_A', scope: 'mcp:tools' });
    expect(body.expires_in).toBeLessThanOrEqual(300);
    const { payload, protectedHeader } = await jwtVerify(body.access_token, createLocalJWKSet(await jwksOf(server)), {
      issuer: server.config.baseUrl.replace(/\/+$/, ''),
      audience: DOWNSTREAM,
    });
    expect(protectedHeader.typ).toBe('oauth-id-jag+jwt');
    expect(payload).toMatchObject({ sub: alice.subject, client_id: 'agent-at-downstream', resource: `${DOWNSTREAM}/mcp` });
    expect(payload.jti).toEqual(expect.any(String));
    // Nothing of this server's tokens is stored for an ID-JAG.
    expect(await countRows(server, 'oauth_access_tokens')).toBe(before);
    // An audience not listed, a client not listed for it, or an ID token of another client: refused.
    expect((await idJagRequest({ audience: 'https://elsewhere.example' })).json()).toMatchObject({ error: 'invalid_target' });
    expect((await idJagRequest({}, service)).json()).toMatchObject({ error: 'unauthorized_client' });
    // Disabling the user stops new ID-JAGs.
    await server.deps.stores.userAdmin.setDisabledAt(alice.id, new Date());
    try {
      expect((await idJagRequest()).json()).toMatchObject({ error: 'invalid_request' });
    } finally {
      await server.deps.stores.userAdmin.setDisabledAt(alice.id, null);
    }
  });

  it('discovery lists the grant while grantFlows does', async () => {
    const metadata = (await server.app.inject({ method: 'GET', url: '/.well-known/oauth-authorization-server' })).json();
    expect(metadata.grant_types_supported).toContain(TOKEN_EXCHANGE_GRANT);
  });
});
