import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { bearerChallenge, headerSafe as guardHeaderSafe } from '../../packages/guard/src/challenge.js';
import { GuardError, GuardUnavailableError, serviceGuard, type GuardToken } from '../../packages/guard/src/index.js';
import { DEFAULT_DPOP_ALGORITHMS } from '../../packages/guard/src/dpop-settings.js';
import { DPOP_ALGORITHMS } from '../../src/config/dpop-schema.js';
import { publicDocumentPreflight } from '../../src/http/plugins/cors.js';
import { errorResponse, headerSafe, wwwAuthenticateValue } from '../../src/http/error-response.js';
import { InsufficientScope, InvalidToken, TemporarilyUnavailable } from '../../src/oauth/errors.js';

// The guard is a package of its own that imports only node:*, fastify and fastify-plugin, so it keeps its own copy
// of the errors it answers with. These tests keep that copy equal to the service's catalogue for the codes both
// send: an API behind the guard and the service's own token info answer the same bytes.

const REASONS = ['revoked', 'expired', 'unknown'] as const;

describe('guard and service answer invalid_token and insufficient_scope alike (RFC 6750 section 3.1)', () => {
  it.each(REASONS)('invalid_token (%s): the same code, status, description and challenge', (reason) => {
    const guard = GuardError.invalidToken(reason);
    const service = new InvalidToken(reason);
    expect({ code: guard.code, status: guard.status, body: guard.toJSON() }).toEqual({
      code: service.code,
      status: service.status,
      body: service.toJSON(),
    });
    expect(bearerChallenge('api "1"', guard)).toBe(wwwAuthenticateValue('api "1"', service));
    expect(bearerChallenge('api', guard)).toBe(errorResponse(service, 'api').headers['www-authenticate']);
  });

  it('a request without a token gets the "invalid" body, and a challenge with the realm only', () => {
    expect(GuardError.invalidToken('missing').toJSON()).toEqual(new InvalidToken('missing').toJSON());
    expect(bearerChallenge('api "1"', GuardError.invalidToken('missing'))).toBe(
      errorResponse(new InvalidToken('missing'), 'api "1"').headers['www-authenticate'],
    );
    expect(bearerChallenge('api', GuardError.invalidToken('missing'))).toBe('Bearer realm="api"');
  });

  it("the guard's DPoP algorithms are by default the service's (RFC 9449 section 5.1: the client picks from its list)", () => {
    expect(DEFAULT_DPOP_ALGORITHMS).toEqual(DPOP_ALGORITHMS);
  });

  it('insufficient_scope: the same code, status and description; the guard adds the scope to the challenge', () => {
    const scopes = ['write', 'admin "x"'];
    const guard = GuardError.insufficientScope(scopes);
    const service = new InsufficientScope(scopes);
    expect({ code: guard.code, status: guard.status, body: guard.toJSON() }).toEqual({
      code: service.code,
      status: service.status,
      body: service.toJSON(),
    });
    expect(bearerChallenge('api', guard)).toBe(`${wwwAuthenticateValue('api', service)}, scope="${headerSafe(scopes.join(' '))}"`);
  });

  it('temporarily_unavailable: the same code and status (the guard says why in its own words)', () => {
    const guard = new GuardUnavailableError('connect ECONNREFUSED');
    const service = new TemporarilyUnavailable();
    expect({ code: guard.code, status: guard.statusCode }).toEqual({ code: service.code, status: service.status });
  });

  // Characters outside the Basic Multilingual Plane differ: the service replaces one by one "_" (as Doorkeeper
  // does), the guard by two (one per UTF-16 unit). Descriptions are ASCII and scope names are too (RFC 6749
  // section 3.3); only a configured realm could show it.
  it('replaces the same characters of the Basic Multilingual Plane in header values', () => {
    const differing = Array.from({ length: 0x10000 }, (_, code) => String.fromCharCode(code)).filter(
      (character) => guardHeaderSafe(`a${character}b`) !== headerSafe(`a${character}b`),
    );
    expect(differing).toEqual([]);
  });
});

describe("the guard's refusals are the service's errorResponse", () => {
  const token = (fields: Partial<GuardToken>): GuardToken => ({
    active: true,
    scopes: ['read'],
    clientId: 'c',
    resourceOwnerId: 1,
    expiresAt: null,
    ...fields,
  });
  const tokens: Record<string, GuardToken> = {
    revoked: token({ active: false, reason: 'revoked' }),
    expired: token({ active: false, reason: 'expired' }),
    reader: token({}),
  };

  async function guarded() {
    const app = Fastify();
    await app.register(serviceGuard, { mode: 'local', realm: 'api', introspect: async (value: string) => tokens[value] ?? null });
    app.get('/notes', { preHandler: app.serviceAuthorize('write') }, async () => ({ ok: true }));
    return app;
  }

  it.each([
    ['unknown', new InvalidToken('unknown')],
    ['revoked', new InvalidToken('revoked')],
    ['expired', new InvalidToken('expired')],
  ] as const)('a %s token: status, no-store, challenge and body', async (value, error) => {
    const app = await guarded();
    const response = await app.inject({ url: '/notes', headers: { authorization: `Bearer ${value}` } });
    const expected = errorResponse(error, 'api');
    expect({ status: response.statusCode, body: response.json() }).toEqual({ status: expected.status, body: expected.body });
    expect(response.headers['cache-control']).toBe(expected.headers['cache-control']);
    expect(response.headers['www-authenticate']).toBe(expected.headers['www-authenticate']);
    await app.close();
  });

  it("a token without the scope: 403 insufficient_scope, the service's challenge plus the scope", async () => {
    const app = await guarded();
    const response = await app.inject({ url: '/notes', headers: { authorization: 'Bearer reader' } });
    const expected = errorResponse(new InsufficientScope(['write']), 'api');
    expect({ status: response.statusCode, body: response.json() }).toEqual({ status: expected.status, body: expected.body });
    expect(response.headers['cache-control']).toBe(expected.headers['cache-control']);
    expect(response.headers['www-authenticate']).toBe(`${expected.headers['www-authenticate']}, scope="write"`);
    await app.close();
  });
});

describe("the guard's RFC 9728 document answers a CORS preflight as the service's public documents do", () => {
  const RESOURCE = 'https://api.example/notes';
  const DOCUMENT = '/.well-known/oauth-protected-resource/notes';

  async function preflights() {
    const guard = Fastify();
    await guard.register(serviceGuard, {
      mode: 'local',
      resource: RESOURCE,
      authorizationServers: ['https://as.example'],
      introspect: async () => null,
    });
    const service = Fastify();
    service.options(DOCUMENT, publicDocumentPreflight);
    return { guard, service };
  }

  it.each([
    ['a header the client adds', 'mcp-protocol-version'],
    ['several, with spaces', 'authorization, MCP-Protocol-Version ,x-a'],
    ['none', undefined],
    ['a value that is no list of header names', 'x-a; y'],
    ['an empty one', ''],
  ])('%s: the same status and headers', async (_label, requested) => {
    const { guard, service } = await preflights();
    const headers = {
      origin: 'https://inspector.example',
      'access-control-request-method': 'GET',
      ...(requested !== undefined && { 'access-control-request-headers': requested }),
    };
    const answers = await Promise.all([guard, service].map((app) => app.inject({ method: 'OPTIONS', url: DOCUMENT, headers })));
    const [fromGuard, fromService] = answers.map(({ statusCode, headers: { date: _date, connection: _connection, ...rest } }) => ({
      statusCode,
      headers: rest,
    }));
    expect(fromGuard!.statusCode).toBe(204);
    expect(fromGuard).toEqual(fromService);
    await Promise.all([guard.close(), service.close()]);
  });
});
