import type { FastifyReply, FastifyRequest } from 'fastify';
import { createLocalJWKSet, decodeProtectedHeader, jwtVerify } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TokensController } from '../../src/http/controllers/index.js';
import { createClient, createUser, issueToken, type TestClient } from '../helpers/factories.js';
import {
  BASIC_CHALLENGE,
  basic,
  bearer,
  during,
  expectNoStore,
  introspectRequest,
  type Headers,
  type Params,
} from '../helpers/oauth-requests.js';
import { jwksOf, openIdServer } from '../helpers/openid.js';
import { backend } from '../helpers/test-database.js';
import { buildTestServer, type TestServer } from '../helpers/test-server.js';

// RFC 9701: the introspection answer as a signed JWT, for a resource server that asks for it in Accept.

const JWT_TYPE = 'application/token-introspection+jwt';
const asksJwt: Headers = { accept: JWT_TYPE };

describe(`POST /oauth/introspect with Accept: ${JWT_TYPE} (RFC 9701) on ${backend}`, () => {
  let server: TestServer;
  let owner: TestClient;
  let userId: number;

  beforeAll(async () => {
    server = await openIdServer();
    owner = await createClient(server.deps);
    userId = (await createUser(server.deps)).id;
  });
  afterAll(() => server.close());

  const asOwner = (extra: Headers = {}) => ({ ...basic(owner.uid, owner.secret!), ...extra });
  const issuer = () => server.config.baseUrl.replace(/\/+$/, '');
  const ownerToken = async () => (await issueToken(server.deps, { application: owner.application, resourceOwnerId: userId })).accessToken;

  /** Verifies the JWT as a resource server does: signature by the served JWKS, typ, iss and aud. */
  const verified = async (jwt: string, audience: string) =>
    jwtVerify(jwt, createLocalJWKSet(await jwksOf(server)), {
      issuer: issuer(),
      audience,
      typ: 'token-introspection+jwt',
      algorithms: ['RS256'],
    });

  describe('section 4: the JWT is asked for by name in Accept; JSON stays the default', () => {
    it('Accept: application/token-introspection+jwt gets 200 with that Content-Type, a compact JWS, no-store', async () => {
      const response = await introspectRequest(server.app, { token: await ownerToken() }, asOwner(asksJwt));
      expect(response.statusCode).toBe(200);
      expect(response.headers['content-type']).toBe(JWT_TYPE);
      expect(response.body).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);
      expectNoStore(response);
    });

    it.each([
      ['no Accept header', undefined],
      ['*/*', '*/*'],
      ['application/*', 'application/*'],
      ['application/json', 'application/json'],
      ['application/jwt (another JWT type)', 'application/jwt'],
      ['the JWT type with q=0', `${JWT_TYPE};q=0`],
      ['the JWT type below application/json', `${JWT_TYPE};q=0.5, application/json`],
      ['the JWT type below */*', `${JWT_TYPE};q=0.5, */*`],
      ['the JWT type with a malformed q', `${JWT_TYPE};q=high`],
    ])('%s: the RFC 7662 JSON answer, as before', async (_name, accept) => {
      const response = await introspectRequest(server.app, { token: await ownerToken() }, asOwner(accept === undefined ? {} : { accept }));
      expect(response.statusCode).toBe(200);
      expect(response.headers['content-type']).toMatch(/^application\/json/);
      expect(response.json()).toMatchObject({ active: true, client_id: owner.uid });
      expectNoStore(response);
    });

    it.each([
      ['the JWT type above application/json', `application/json;q=0.5, ${JWT_TYPE}`],
      ['the JWT type with */* as a fallback', `${JWT_TYPE}, */*;q=0.1`],
      ['the JWT type and application/json at the same q (named, it wins the tie)', `application/json, ${JWT_TYPE}`],
      ['the JWT type in other letter cases (media types are case-insensitive)', 'Application/Token-Introspection+JWT'],
      ['the JWT type with spaces and q=1.000', ` ${JWT_TYPE} ; q=1.000 , application/json;q=0.9`],
    ])('%s: the JWT', async (_name, accept) => {
      const response = await introspectRequest(server.app, { token: await ownerToken() }, asOwner({ accept }));
      expect(response.statusCode).toBe(200);
      expect(response.headers['content-type']).toBe(JWT_TYPE);
      expect((await verified(response.body, owner.uid)).payload.token_introspection).toMatchObject({ active: true });
    });
  });

  describe('section 5: iss, aud, iat and token_introspection, typ token-introspection+jwt, signed by a served key', () => {
    /** The same request answered as JSON and as the JWT: the JWT's claim must be the JSON answer. */
    const bothAnswers = async (params: Params, headers: Headers) => {
      const json = await introspectRequest(server.app, params, headers);
      const { response, from, to } = await during(server.clock, () => introspectRequest(server.app, params, { ...headers, ...asksJwt }));
      expect(response.headers['content-type']).toBe(JWT_TYPE);
      return { json: json.json() as Record<string, unknown>, jwt: response.body, from, to };
    };

    it('an active access token: the payload is exactly iss, aud, iat and token_introspection equal to the JSON answer', async () => {
      const { json, jwt, from, to } = await bothAnswers({ token: await ownerToken() }, asOwner());
      const { payload, protectedHeader } = await verified(jwt, owner.uid);
      expect(Object.keys(payload).sort()).toEqual(['aud', 'iat', 'iss', 'token_introspection']);
      expect(payload.iss).toBe(issuer());
      expect(payload.aud).toBe(owner.uid);
      expect(payload.iat).toBeGreaterThanOrEqual(Math.floor(from / 1000));
      expect(payload.iat).toBeLessThanOrEqual(Math.ceil(to / 1000));
      expect(json).toMatchObject({ active: true, client_id: owner.uid, token_type: 'Bearer', scope: 'read' });
      expect(payload.token_introspection).toEqual(json);
      expect(protectedHeader).toEqual({ alg: 'RS256', kid: expect.any(String), typ: 'token-introspection+jwt' });
      expect((await jwksOf(server)).keys.map((key) => key.kid)).toContain(protectedHeader.kid);
    });

    it('iss is baseUrl without its trailing slash, the issuer of the metadata', async () => {
      const metadata = (await server.app.inject({ method: 'GET', url: '/.well-known/oauth-authorization-server' })).json();
      const response = await introspectRequest(server.app, { token: await ownerToken() }, asOwner(asksJwt));
      expect((await verified(response.body, owner.uid)).payload.iss).toBe(metadata.issuer);
      expect(metadata.issuer).not.toMatch(/\/$/);
    });

    it('an unknown token: token_introspection is exactly {"active":false}, signed and addressed all the same', async () => {
      const { json, jwt } = await bothAnswers({ token: 'no-such-token' }, asOwner());
      expect(json).toEqual({ active: false });
      const { payload } = await verified(jwt, owner.uid);
      expect(payload).toEqual({ iss: issuer(), aud: owner.uid, iat: expect.any(Number), token_introspection: { active: false } });
    });

    it('a revoked token: token_introspection is {"active":false}, as the JSON answer', async () => {
      const issued = await issueToken(server.deps, { application: owner.application });
      await server.deps.stores.accessTokens.revoke(issued.record.id, server.clock.now);
      const { json, jwt } = await bothAnswers({ token: issued.accessToken }, asOwner());
      expect(json).toEqual({ active: false });
      expect((await verified(jwt, owner.uid)).payload.token_introspection).toEqual({ active: false });
    });

    it('a refresh token: token_introspection equals the JSON answer (token_type refresh_token)', async () => {
      const issued = await issueToken(server.deps, { application: owner.application, withRefreshToken: true });
      const { json, jwt } = await bothAnswers({ token: issued.refreshToken!, token_type_hint: 'refresh_token' }, asOwner());
      expect(json).toMatchObject({ active: true, token_type: 'refresh_token' });
      expect((await verified(jwt, owner.uid)).payload.token_introspection).toEqual(json);
    });

    it('a Bearer requester: aud is the client_id of the requester token', async () => {
      const requester = await issueToken(server.deps, { application: owner.application });
      const { json, jwt } = await bothAnswers({ token: await ownerToken() }, bearer(requester.accessToken));
      const { payload } = await verified(jwt, owner.uid);
      expect(payload.aud).toBe(owner.uid);
      expect(payload.token_introspection).toEqual(json);
    });

    it('a Bearer requester whose token has no client gets the JSON answer: there is no resource server to address', async () => {
      const requester = await issueToken(server.deps, { application: null });
      const issued = await issueToken(server.deps, { application: null });
      const response = await introspectRequest(server.app, { token: issued.accessToken }, { ...bearer(requester.accessToken), ...asksJwt });
      expect(response.statusCode).toBe(200);
      expect(response.headers['content-type']).toMatch(/^application\/json/);
      expect(response.json()).toMatchObject({ active: true, token_type: 'Bearer' });
    });

    it('the JWT is signed, not encrypted: a JWS of three parts whose header has no enc', async () => {
      const response = await introspectRequest(server.app, { token: await ownerToken() }, asOwner(asksJwt));
      expect(response.body.split('.')).toHaveLength(3);
      expect(decodeProtectedHeader(response.body)).not.toHaveProperty('enc');
    });
  });

  describe('errors stay the JSON errors of RFC 7662 and RFC 6749, whatever Accept says', () => {
    const sameAsJson = async (params: Params, headers: Headers) => {
      const json = await introspectRequest(server.app, params, headers);
      const asked = await introspectRequest(server.app, params, { ...headers, ...asksJwt });
      expect(asked.statusCode).toBeGreaterThanOrEqual(400);
      expect({ status: asked.statusCode, body: asked.json(), challenge: asked.headers['www-authenticate'] }).toEqual({
        status: json.statusCode,
        body: json.json(),
        challenge: json.headers['www-authenticate'],
      });
      expect(asked.headers['content-type']).toMatch(/^application\/json/);
      expectNoStore(asked);
      return asked;
    };

    it('a wrong client secret: 401 invalid_client with the Basic challenge', async () => {
      const response = await sameAsJson({ token: 'anything' }, basic(owner.uid, 'wrong'));
      expect(response.json().error).toBe('invalid_client');
      expect(response.headers['www-authenticate']).toBe(BASIC_CHALLENGE);
    });

    it('no credentials: 401 invalid_client', async () => {
      expect((await sameAsJson({ token: 'anything' }, {})).json().error).toBe('invalid_client');
    });

    it('no token parameter: 400 invalid_request', async () => {
      expect((await sameAsJson({}, asOwner())).json().error).toBe('invalid_request');
    });

    it('a revoked Bearer requester: 401 invalid_token', async () => {
      const requester = await issueToken(server.deps, { application: owner.application });
      await server.deps.stores.accessTokens.revoke(requester.record.id, server.clock.now);
      expect((await sameAsJson({ token: await ownerToken() }, bearer(requester.accessToken))).json().error).toBe('invalid_token');
    });
  });

  it('the metadata advertises introspection_signing_alg_values_supported ["RS256"] (RFC 9701 section 7), discovery too', async () => {
    for (const url of ['/.well-known/oauth-authorization-server', '/.well-known/openid-configuration']) {
      const metadata = (await server.app.inject({ method: 'GET', url })).json();
      expect(metadata.introspection_signing_alg_values_supported).toEqual(['RS256']);
    }
  });
});

describe(`RFC 9701 without signing keys or without introspection on ${backend}`, () => {
  it('openid off: the JSON answer to a request for the JWT (no keys to sign with), and no signing field in the metadata', async () => {
    const server = await buildTestServer();
    try {
      const client = await createClient(server.deps);
      const issued = await issueToken(server.deps, { application: client.application });
      const response = await introspectRequest(
        server.app,
        { token: issued.accessToken },
        { ...basic(client.uid, client.secret!), ...asksJwt },
      );
      expect(response.statusCode).toBe(200);
      expect(response.headers['content-type']).toMatch(/^application\/json/);
      expect(response.json()).toMatchObject({ active: true, client_id: client.uid });
      expectNoStore(response);
      const metadata = (await server.app.inject({ method: 'GET', url: '/.well-known/oauth-authorization-server' })).json();
      expect(metadata).not.toHaveProperty('introspection_signing_alg_values_supported');
    } finally {
      await server.close();
    }
  });

  it('introspection off: no signing field in the metadata, though openid is on', async () => {
    const server = await openIdServer({ config: { introspection: { enabled: false } } });
    try {
      for (const url of ['/.well-known/oauth-authorization-server', '/.well-known/openid-configuration']) {
        const metadata = (await server.app.inject({ method: 'GET', url })).json();
        expect(metadata).not.toHaveProperty('introspection_signing_alg_values_supported');
        expect(metadata).not.toHaveProperty('introspection_endpoint');
      }
    } finally {
      await server.close();
    }
  });
});

/** An extension that overrides introspect and calls super, as extensions-controllers-api.test.ts does. */
class HeaderedTokensController extends TokensController {
  override async introspect(request: FastifyRequest, reply: FastifyReply) {
    reply.header('x-introspected-by', 'extension');
    return super.introspect(request, reply);
  }
}

describe(`RFC 9701 through a tokens controller subclass (SPEC 7) on ${backend}`, () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await openIdServer({ extensions: { controllers: { tokens: HeaderedTokensController } } });
  });
  afterAll(() => server.close());

  it('the overridden introspect still answers the JWT when asked, and JSON otherwise', async () => {
    const client = await createClient(server.deps);
    const issued = await issueToken(server.deps, { application: client.application });
    const asClient = basic(client.uid, client.secret!);
    const signed = await introspectRequest(server.app, { token: issued.accessToken }, { ...asClient, ...asksJwt });
    expect(signed.headers['x-introspected-by']).toBe('extension');
    expect(signed.headers['content-type']).toBe(JWT_TYPE);
    const { payload } = await jwtVerify(signed.body, createLocalJWKSet(await jwksOf(server)), { audience: client.uid });
    const plain = await introspectRequest(server.app, { token: issued.accessToken }, asClient);
    expect(plain.headers['x-introspected-by']).toBe('extension');
    expect(payload.token_introspection).toEqual(plain.json());
  });
});

describe(`RFC 9701 section 5: a token issued for a resource, introspected for a JWT (${backend})`, () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await openIdServer({ config: { introspection: { allow: [{ rule: 'tokenApplication' }, { rule: 'audience' }] } } });
  });
  afterAll(() => server.close());

  it('is active to the server of its resource only; its own client gets active false and nothing else (the JSON answer unchanged)', async () => {
    const [client, api] = [await createClient(server.deps), await createClient(server.deps)];
    const uri = 'https://introspected-api.example.com';
    const resource = {
      uri,
      name: '',
      scopes: ['read'],
      tokenFormat: 'opaque' as const,
      accessTokenLifetime: null,
      serverClientId: api.uid,
    };
    await server.deps.stores.resources.create(resource);
    const audience = { uris: [uri], resources: await server.deps.stores.resources.findByUris([uri]) };
    const { accessToken } = await issueToken(server.deps, { application: client.application, audience });
    const payloadFor = async (requester: TestClient) => {
      const signed = await introspectRequest(
        server.app,
        { token: accessToken },
        { ...basic(requester.uid, requester.secret!), ...asksJwt },
      );
      const { payload } = await jwtVerify(signed.body, createLocalJWKSet(await jwksOf(server)), { audience: requester.uid });
      return payload.token_introspection;
    };
    expect(await payloadFor(api)).toMatchObject({ active: true, aud: uri, client_id: client.uid });
    expect(await payloadFor(client)).toEqual({ active: false });
    const json = await introspectRequest(server.app, { token: accessToken }, basic(client.uid, client.secret!));
    expect(json.json()).toMatchObject({ active: true, aud: uri });
  });
});
