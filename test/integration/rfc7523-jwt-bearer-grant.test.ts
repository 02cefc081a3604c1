import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TrustedIssuerConfig } from '../../src/config/trusted-issuers-schema.js';
import type { GrantFlow } from '../../src/config/types.js';
import { createUser } from '../helpers/factories.js';
import { capturedLogLines } from '../helpers/log-lines.js';
import { basic, introspectRequest, tokenRequest, type Params } from '../helpers/oauth-requests.js';
import { backend } from '../helpers/test-database.js';
import { buildTestServer, type TestServer } from '../helpers/test-server.js';
import { assertionClaims, assertionIssuer, JWT_BEARER_GRANT, jwtBearerClient, type AssertionIssuer } from '../helpers/trusted-issuer.js';
import type { TestClient } from '../helpers/factories.js';

// RFC 7523 section 2.1 (issue 34 item 3): a trusted issuer's assertion redeemed for an access token, and the ID-JAG
// profile of draft-ietf-oauth-identity-assertion-authz-grant (MCP enterprise-managed authorization). Every refusal
// has its error code, and stores nothing: no token, no user, no link, and no jti when the assertion did not verify.

const IDP = 'https://idp.example.com';
const ENTERPRISE = 'https://enterprise.example.com';
const JIT = 'https://jit.example.com';
const MCP = 'https://mcp.example.com/mcp';
// An issuer whose published key is broken (an EC key without its y coordinate), on a JWKS server of its own.
const BROKEN = 'https://broken.example.com';

describe(`RFC 7523 JWT bearer grant and ID-JAG (${backend})`, () => {
  let server: TestServer;
  let issuer: AssertionIssuer;
  let agent: TestClient;
  let other: TestClient;
  let renewing: TestClient;
  let aud: string;
  let aliceSubject: string;
  const logs = capturedLogLines();
  const sent: string[] = [];

  let brokenKeys: Server;

  beforeAll(async () => {
    issuer = await assertionIssuer();
    const { y: _y, ...pointless } = issuer.publicJwk;
    brokenKeys = createServer((_request, response) => response.end(JSON.stringify({ keys: [pointless] })));
    await new Promise<void>((resolve) => brokenKeys.listen(0, '127.0.0.1', resolve));
    const brokenJwksUri = `http://127.0.0.1:${(brokenKeys.address() as AddressInfo).port}/jwks`;
    const entry = { jwksUri: issuer.jwksUri, clients: ['agent', 'other', 'renewing'], scopes: ['read', 'write'] };
    server = await buildTestServer({
      logStream: logs.stream,
      config: {
        log: { level: 'trace', format: 'json' },
        grantFlows: ['authorization_code', 'client_credentials', 'refresh_token', JWT_BEARER_GRANT] as GrantFlow[],
        defaultScopes: ['read'],
        optionalScopes: ['write', 'admin'],
        trustedIssuers: [
          { ...entry, issuer: IDP, userMatch: 'email' },
          { ...entry, issuer: ENTERPRISE, idJag: true, userMatch: 'email', maxLifetimeSeconds: 300 },
          { ...entry, issuer: JIT, clients: ['agent', 'renewing'], createUsers: true, refreshTokens: true },
          { ...entry, issuer: BROKEN, jwksUri: brokenJwksUri, userMatch: 'email' },
          // The loader fills in the defaults, as for a file.
        ] as TrustedIssuerConfig[],
      },
    });
    aud = server.config.baseUrl.replace(/\/+$/, '');
    agent = await jwtBearerClient(server.deps, 'agent');
    other = await jwtBearerClient(server.deps, 'other');
    renewing = await jwtBearerClient(server.deps, 'renewing', [JWT_BEARER_GRANT, 'refresh_token']);
    const alice = await createUser(server.deps, 'alice');
    aliceSubject = alice.subject;
    await server.deps.stores.userAdmin.updateClaims(alice.id, { email: 'Alice@Example.com', emailVerified: true }, new Date());
    await server.deps.stores.resources.create({
      name: 'MCP server',
      uri: MCP,
      scopes: ['read', 'write'],
      serverClientId: null,
      tokenFormat: 'opaque',
      accessTokenLifetime: null,
    });
  });
  afterAll(async () => {
    await server.close();
    await issuer.close();
    await new Promise((resolve) => brokenKeys.close(resolve));
  });

  const redeem = (client: TestClient, assertion: string, params: Params = {}) => {
    sent.push(assertion);
    return tokenRequest(server.app, { grant_type: JWT_BEARER_GRANT, assertion, ...params }, basic(client.uid, client.secret!));
  };
  const count = async (table: string) =>
    Number((await server.app.database.sql.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table}`))[0]!.n);
  const stored = async () => ({
    tokens: await count('oauth_access_tokens'),
    jtis: await count('oauth_dpop_proofs'),
    users: await count('users'),
    links: await count('oauth_federated_subjects'),
  });
  const aliceAssertion = (claims: Record<string, unknown> = {}) =>
    assertionClaims({ iss: IDP, aud, sub: 'alice-at-idp', email: 'alice@example.com', email_verified: true, ...claims });
  const idJag = (claims: Record<string, unknown> = {}) =>
    assertionClaims({
      iss: ENTERPRISE,
      aud,
      sub: 'alice-at-enterprise',
      email: 'alice@example.com',
      email_verified: true,
      client_id: 'agent',
      ...claims,
    });

  async function expectRefused(response: { statusCode: number; json: () => unknown }, error: string, description?: string) {
    expect(response.statusCode, JSON.stringify(response.json())).toBe(error === 'invalid_client' ? 401 : 400);
    expect(response.json()).toMatchObject({ error, ...(description !== undefined && { error_description: description }) });
  }

  it("a trusted issuer's assertion yields an access token for that user and client, no refresh token; introspection shows both", async () => {
    const response = await redeem(agent, await issuer.sign(aliceAssertion()), { scope: 'read' });
    expect(response.statusCode, response.body).toBe(200);
    const body = response.json();
    expect(body).toMatchObject({ token_type: 'Bearer', scope: 'read' });
    expect(body.refresh_token).toBeUndefined();
    const introspection = (await introspectRequest(server.app, { token: body.access_token }, basic(agent.uid, agent.secret!))).json();
    expect(introspection).toMatchObject({ active: true, client_id: 'agent', sub: aliceSubject, scope: 'read' });
    // The subject is linked now: without any email it is still alice.
    const again = await redeem(agent, await issuer.sign(aliceAssertion({ email: undefined, email_verified: undefined })));
    expect(again.statusCode, again.body).toBe(200);
    const second = (await introspectRequest(server.app, { token: again.json().access_token }, basic(agent.uid, agent.secret!))).json();
    expect(second).toMatchObject({ active: true, sub: aliceSubject, scope: 'read' });
    const [event] = await server.app.database.sql.query<{ client_id: string; details: string }>(
      "SELECT client_id, details FROM oauth_audit_events WHERE type = 'assertion.redeemed'",
    );
    expect(event!.client_id).toBe('agent');
    expect(JSON.parse(event!.details)).toMatchObject({ issuer: IDP, id_jag: false });
  });

  it('an ID-JAG with a resource yields a token whose audience is that resource', async () => {
    const assertion = await issuer.sign(idJag({ resource: MCP, scope: 'read write' }), { typ: 'oauth-id-jag+jwt' });
    const response = await redeem(agent, assertion);
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json()).toMatchObject({ scope: 'read write' });
    const introspection = (
      await introspectRequest(server.app, { token: response.json().access_token }, basic(agent.uid, agent.secret!))
    ).json();
    expect(introspection).toMatchObject({ active: true, client_id: 'agent', sub: aliceSubject, aud: MCP });
  });

  it('an ID-JAG typ compares as a media type (RFC 7515 section 4.1.9): any case, with or without application/', async () => {
    for (const typ of ['application/oauth-id-jag+jwt', 'OAUTH-ID-JAG+JWT', 'Application/OAuth-ID-JAG+JWT']) {
      const response = await redeem(agent, await issuer.sign(idJag({ resource: MCP }), { typ }));
      expect(response.statusCode, `${typ}: ${response.body}`).toBe(200);
    }
  });

  it('an assertion of an issuer that is not idJag may leave out iat (RFC 7523 section 3: optional)', async () => {
    const response = await redeem(agent, await issuer.sign(aliceAssertion({ iat: undefined })));
    expect(response.statusCode, response.body).toBe(200);
  });

  it('a refresh token only where the issuer allows it (refreshTokens) and the client may have one', async () => {
    const withoutRefresh = await redeem(renewing, await issuer.sign(aliceAssertion()));
    expect(withoutRefresh.statusCode, withoutRefresh.body).toBe(200);
    expect(withoutRefresh.json().refresh_token).toBeUndefined();
    const withRefresh = await redeem(renewing, await issuer.sign(assertionClaims({ iss: JIT, aud, sub: 'renewer' })));
    expect(withRefresh.statusCode, withRefresh.body).toBe(200);
    expect(withRefresh.json().refresh_token).toEqual(expect.any(String));
    const notThisClient = await redeem(agent, await issuer.sign(assertionClaims({ iss: JIT, aud, sub: 'renewer' })));
    expect(notThisClient.statusCode, notThisClient.body).toBe(200);
    expect(notThisClient.json().refresh_token).toBeUndefined();
  });

  it('creates a user just in time for an issuer that allows it, linked to its subject', async () => {
    const before = await stored();
    const response = await redeem(agent, await issuer.sign(assertionClaims({ iss: JIT, aud, sub: 'newcomer' })));
    expect(response.statusCode, response.body).toBe(200);
    expect(await stored()).toMatchObject({ users: before.users + 1, links: before.links + 1 });
    const introspection = (
      await introspectRequest(server.app, { token: response.json().access_token }, basic(agent.uid, agent.secret!))
    ).json();
    const newcomer = await server.deps.stores.users.findByUsername('newcomer@jit.example.com');
    expect(introspection).toMatchObject({ active: true, sub: newcomer!.subject });
  });

  it('a subject whose user name here is taken or not valid: invalid_grant without repeating the subject', async () => {
    await createUser(server.deps, 'taken@jit.example.com');
    const odd = `${'x'.repeat(300)}\u202e`;
    for (const sub of ['taken', odd]) {
      const before = await stored();
      const response = await redeem(agent, await issuer.sign(assertionClaims({ iss: JIT, aud, sub })));
      await expectRefused(
        response,
        'invalid_grant',
        "No user can be created for the assertion's subject: its user name here is taken or not valid.",
      );
      expect(await stored()).toMatchObject({ users: before.users, links: before.links, tokens: before.tokens });
    }
  });

  it('refuses a replayed assertion (invalid_grant), storing nothing for the replay', async () => {
    const assertion = await issuer.sign(aliceAssertion());
    expect((await redeem(agent, assertion)).statusCode).toBe(200);
    const before = await stored();
    await expectRefused(await redeem(agent, assertion), 'invalid_grant', 'The assertion was used already (jti).');
    expect(await stored()).toEqual(before);
  });

  describe('refusals that store nothing, the jti included', () => {
    const now = () => Math.floor(Date.now() / 1000);
    const cases: Array<[string, () => Promise<{ client?: () => TestClient; assertion: string; params?: Params }>, string, string?]> = [
      [
        'wrong aud',
        async () => ({ assertion: await issuer.sign(aliceAssertion({ aud: 'https://elsewhere.example.com' })) }),
        'invalid_grant',
        'The assertion is for another audience (aud).',
      ],
      ['alg none', async () => ({ assertion: unsigned(aliceAssertion()) }), 'invalid_grant'],
      [
        'HS256 signed with the public key',
        async () => ({ assertion: await hs256WithPublicKey(issuer, aliceAssertion()) }),
        'invalid_grant',
      ],
      [
        'expired',
        async () => ({ assertion: await issuer.sign(aliceAssertion({ iat: now() - 600, exp: now() - 120 })) }),
        'invalid_grant',
        'The assertion has expired.',
      ],
      [
        'an iat that is no number',
        async () => ({ assertion: await issuer.sign(aliceAssertion({ iat: 'x' })) }),
        'invalid_grant',
        "The assertion's iat claim is not a number (seconds since 1970).",
      ],
      [
        'issued in the future (iat)',
        async () => ({ assertion: await issuer.sign(aliceAssertion({ iat: now() + 120 })) }),
        'invalid_grant',
        'The assertion is not valid yet (iat).',
      ],
      [
        'not valid yet (nbf)',
        async () => ({ assertion: await issuer.sign(aliceAssertion({ nbf: now() + 120 })) }),
        'invalid_grant',
        'The assertion is not valid yet (nbf).',
      ],
      [
        'exp too far ahead',
        async () => ({ assertion: await issuer.sign(aliceAssertion({ exp: now() + 3600 })) }),
        'invalid_grant',
        'The assertion expires too far ahead (at most 300 seconds).',
      ],
      [
        'a foreign issuer',
        async () => ({ assertion: await issuer.sign(aliceAssertion({ iss: 'https://evil.example.com' })) }),
        'invalid_grant',
        "The assertion's issuer (iss) is not trusted here.",
      ],
      [
        'a signature by another key',
        async () => ({ assertion: await signedByStranger(aliceAssertion()) }),
        'invalid_grant',
        'The assertion signature does not verify.',
      ],
      [
        'a key id the issuer does not publish',
        async () => ({ assertion: await signedByStranger(aliceAssertion(), 'idp-2') }),
        'invalid_grant',
        'No key of the issuer matches the assertion.',
      ],
      [
        // Web Crypto refuses the key (a DataError, which jose passes on): the issuer's fault, said, not a 500.
        'an issuer whose published key is broken',
        async () => ({ assertion: await issuer.sign(aliceAssertion({ iss: BROKEN })) }),
        'invalid_grant',
        "The issuer's keys could not be used to verify the assertion.",
      ],
      [
        'no exp (RFC 7523 section 3 item 4: MUST)',
        async () => ({ assertion: await issuer.sign(aliceAssertion({ exp: undefined })) }),
        'invalid_grant',
        'The assertion has no valid exp.',
      ],
      [
        'no sub (section 3 item 2: MUST)',
        async () => ({ assertion: await issuer.sign(aliceAssertion({ sub: undefined })) }),
        'invalid_grant',
        'The assertion has no sub claim.',
      ],
      [
        'an empty sub',
        async () => ({ assertion: await issuer.sign(aliceAssertion({ sub: '' })) }),
        'invalid_grant',
        'The assertion has no sub claim.',
      ],
      [
        // Its replay is refused by the jti: without one it could be replayed until it expires.
        'no jti',
        async () => ({ assertion: await issuer.sign(aliceAssertion({ jti: undefined })) }),
        'invalid_grant',
        'The assertion needs a jti.',
      ],
      [
        'a jti longer than 256 characters',
        async () => ({ assertion: await issuer.sign(aliceAssertion({ jti: 'j'.repeat(257) })) }),
        'invalid_grant',
        'The assertion needs a jti.',
      ],
      [
        'an ID-JAG without its typ',
        async () => ({ assertion: await issuer.sign(idJag({ resource: MCP })) }),
        'invalid_grant',
        'The assertion must have typ oauth-id-jag+jwt.',
      ],
      [
        'an ID-JAG whose typ is of another kind (application/jwt)',
        async () => ({ assertion: await issuer.sign(idJag({ resource: MCP }), { typ: 'application/jwt' }) }),
        'invalid_grant',
        'The assertion must have typ oauth-id-jag+jwt.',
      ],
      [
        'an ID-JAG without iat (the draft: REQUIRED)',
        async () => ({ assertion: await issuer.sign(idJag({ resource: MCP, iat: undefined }), { typ: 'oauth-id-jag+jwt' }) }),
        'invalid_grant',
        'The assertion has no iat: an ID-JAG says when it was issued.',
      ],
      [
        'an ID-JAG whose aud also names another server (the draft: this server, one value)',
        async () => ({
          assertion: await issuer.sign(idJag({ resource: MCP, aud: [aud, 'https://elsewhere.example.com'] }), { typ: 'oauth-id-jag+jwt' }),
        }),
        'invalid_grant',
        'The assertion names other audiences too (aud): an ID-JAG is for this server alone.',
      ],
      [
        'an ID-JAG without client_id',
        async () => ({ assertion: await issuer.sign(idJag({ client_id: undefined }), { typ: 'oauth-id-jag+jwt' }) }),
        'invalid_grant',
        'The assertion has no client_id claim.',
      ],
      [
        'an ID-JAG of another client',
        async () => ({ assertion: await issuer.sign(idJag({ client_id: 'other' }), { typ: 'oauth-id-jag+jwt' }) }),
        'invalid_grant',
        'The assertion was issued to another client (client_id).',
      ],
      [
        'an ID-JAG for an unregistered resource',
        async () => ({ assertion: await issuer.sign(idJag({ resource: 'https://unknown.example.com' }), { typ: 'oauth-id-jag+jwt' }) }),
        'invalid_grant',
        "The assertion's resource is not a resource registered here.",
      ],
      [
        'an unverified email',
        async () => ({ assertion: await issuer.sign(aliceAssertion({ sub: 'someone-else', email_verified: false })) }),
        'invalid_grant',
        "The assertion's subject is not a user here.",
      ],
      [
        "a client not in the issuer's clients",
        async () => ({ client: () => other, assertion: await issuer.sign(assertionClaims({ iss: JIT, aud, sub: 'x' })) }),
        'unauthorized_client',
      ],
      [
        'a wider scope asked for',
        async () => ({ assertion: await issuer.sign(aliceAssertion()), params: { scope: 'read admin' } }),
        'invalid_scope',
      ],
      [
        'a scope the ID-JAG did not grant',
        async () => ({ assertion: await issuer.sign(idJag({ scope: 'read' }), { typ: 'oauth-id-jag+jwt' }), params: { scope: 'write' } }),
        'invalid_scope',
      ],
      [
        'a scope claim that is no string (it would bound nothing)',
        async () => ({ assertion: await issuer.sign(idJag({ scope: 5 as unknown as string }), { typ: 'oauth-id-jag+jwt' }) }),
        'invalid_grant',
        'The assertion’s scope claim must be a string of space-separated scopes.',
      ],
      [
        // Looked up in PostgreSQL text columns, which refuse a NUL: a 500 before.
        'a NUL in a claim (the subject, an email)',
        async () => ({ assertion: await issuer.sign(aliceAssertion({ sub: 'a\u0000b' })) }),
        'invalid_grant',
        'The assertion’s claims must not hold a NUL character or an unpaired UTF-16 surrogate.',
      ],
      [
        // Stored as U+FFFD: "z\ud800" and "z\udc00" would be one user.
        'an unpaired surrogate in the subject',
        async () => ({ assertion: await issuer.sign(aliceAssertion({ sub: 'z\ud800' })) }),
        'invalid_grant',
        'The assertion’s claims must not hold a NUL character or an unpaired UTF-16 surrogate.',
      ],
      [
        'a NUL in the email of a just-in-time user',
        async () => ({ assertion: await issuer.sign(assertionClaims({ iss: JIT, aud, sub: 'nul-mail', email: 'x\u0000@y.example' })) }),
        'invalid_grant',
        'The assertion’s claims must not hold a NUL character or an unpaired UTF-16 surrogate.',
      ],
    ];
    it.each(cases)('%s', async (_name, make, error, description) => {
      const { client = () => agent, assertion, params } = await make();
      const before = await stored();
      await expectRefused(await redeem(client(), assertion, params), error, description);
      expect(await stored()).toEqual(before);
    });
  });

  it('refuses a client whose grant types do not name the grant (unauthorized_client), and a wrong secret (invalid_client)', async () => {
    const plain = await jwtBearerClient(server.deps, 'plain', ['client_credentials']);
    const assertion = await issuer.sign(aliceAssertion());
    await expectRefused(await redeem(plain, assertion), 'unauthorized_client');
    await expectRefused(await redeem({ ...agent, secret: 'wrong' }, assertion), 'invalid_client');
    await expectRefused(
      await tokenRequest(server.app, { grant_type: JWT_BEARER_GRANT }, basic(agent.uid, agent.secret!)),
      'invalid_request',
    );
    await expectRefused(await redeem(agent, 'not-a-jwt'), 'invalid_grant', 'The assertion is not a JWT.');
  });

  it('keeps every assertion out of the log, at trace level', () => {
    expect(sent.length).toBeGreaterThan(20);
    expect(logs.raw.length).toBeGreaterThan(0);
    for (const assertion of sent) expect(logs.raw.filter((line) => line.includes(assertion.split('.')[1]!))).toEqual([]);
  });

  it('lists the grant in discovery', async () => {
    const metadata = (await server.app.inject({ url: '/.well-known/oauth-authorization-server' })).json();
    expect(metadata.grant_types_supported).toContain(JWT_BEARER_GRANT);
  });
});

const base64url = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');

function unsigned(claims: object): string {
  return `${base64url({ alg: 'none', kid: 'idp-1' })}.${base64url(claims)}.`;
}

// The classic key confusion: the issuer's public key (as published) used as an HMAC secret.
async function hs256WithPublicKey(issuer: AssertionIssuer, claims: object): Promise<string> {
  const { createHmac } = await import('node:crypto');
  const input = `${base64url({ alg: 'HS256', kid: 'idp-1' })}.${base64url(claims)}`;
  const signature = createHmac('sha256', JSON.stringify(issuer.publicJwk)).update(input).digest('base64url');
  return `${input}.${signature}`;
}

/** Signed by a key of the caller's own, under the issuer's kid unless told another. */
async function signedByStranger(claims: object, kid = 'idp-1'): Promise<string> {
  const { generateKeyPair, SignJWT } = await import('jose');
  const { privateKey } = await generateKeyPair('ES256');
  return new SignJWT(claims as Record<string, unknown>).setProtectedHeader({ alg: 'ES256', kid }).sign(privateKey);
}
