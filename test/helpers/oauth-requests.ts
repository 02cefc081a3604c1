import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';
import { createClient, type TestClient } from './factories.js';
import { basicAuth, buildTestServer, form, FORM, type TestServer, type TestServerOptions } from './test-server.js';

// HTTP helpers for the API group's acceptance tests (token, revoke, introspect, token info). The texts below
// are copied from the reference (section 2.4), not imported from src, so a changed description fails a test.

export const TEXT = {
  invalidRequest: 'The request is missing a required parameter, includes an unsupported parameter value, or is otherwise malformed.',
  multipleMethods: 'The request utilizes more than one mechanism for authenticating the client.',
  invalidClient:
    'Client authentication failed due to unknown client, no client authentication included, or unsupported authentication method.',
  invalidGrant:
    'The provided authorization grant is invalid, expired, revoked, does not match the redirection URI used in the authorization request, or was issued to another client.',
  unauthorizedClient: 'The client is not authorized to perform this request using this method.',
  unsupportedGrantType: 'The authorization grant type is not supported by the authorization server.',
  invalidScope: 'The requested scope is invalid, unknown, or malformed.',
  tokenInvalid: 'The access token is invalid',
  tokenExpired: 'The access token expired',
  tokenRevoked: 'The access token was revoked',
  revokeNotAuthorized: 'You are not authorized to revoke this token',
} as const;

export const missing = (name: string) => `Missing required parameter: ${name}.`;

/** An opaque token (access token, refresh token) as the server issues it: 32 random bytes in base64url. */
export const OPAQUE_TOKEN = /^[A-Za-z0-9_-]{43}$/;

export type Params = Record<string, string | string[]>;
export type Headers = Record<string, string>;

export function postForm(app: FastifyInstance, url: string, params: Params, headers: Headers = {}) {
  return app.inject({ method: 'POST', url, headers: { ...FORM, ...headers }, payload: form(params) });
}

export const tokenRequest = (app: FastifyInstance, params: Params, headers?: Headers) => postForm(app, '/oauth/token', params, headers);
export const revokeRequest = (app: FastifyInstance, params: Params, headers?: Headers) => postForm(app, '/oauth/revoke', params, headers);
export const introspectRequest = (app: FastifyInstance, params: Params, headers?: Headers) =>
  postForm(app, '/oauth/introspect', params, headers);
export const tokenInfoRequest = (app: FastifyInstance, headers: Headers = {}) =>
  app.inject({ method: 'GET', url: '/oauth/token/info', headers });

/** POST /oauth/register (RFC 7591): the metadata as JSON, with these headers (an initial access token's Bearer). */
export const registrationRequest = (app: FastifyInstance, metadata: object, headers: Headers = {}) =>
  app.inject({ method: 'POST', url: '/oauth/register', headers: { 'content-type': 'application/json', ...headers }, payload: metadata });

/**
 * A browser MCP client's CORS preflight of a public document (it adds MCP-Protocol-Version), and what every origin must
 * be answered: 204, any origin, GET, the header asked for, no credentials.
 */
export async function expectPublicDocumentPreflight(app: FastifyInstance, url: string): Promise<void> {
  const response = await app.inject({
    method: 'OPTIONS',
    url,
    headers: {
      origin: 'https://inspector.example',
      'access-control-request-method': 'GET',
      'access-control-request-headers': 'mcp-protocol-version',
    },
  });
  expect(response.statusCode, url).toBe(204);
  expect(response.headers).toMatchObject({
    'access-control-allow-origin': '*',
    'access-control-allow-methods': 'GET, HEAD',
    'access-control-allow-headers': 'mcp-protocol-version',
    'access-control-max-age': '600',
  });
  expect(response.headers).not.toHaveProperty('access-control-allow-credentials');
}

export const basic = (id: string, secret: string): Headers => ({ authorization: basicAuth(id, secret) });
export const bearer = (token: string): Headers => ({ authorization: `Bearer ${token}` });

/**
 * A server with its own config on `base`'s database (one database for a file, a config for each describe), and a
 * confidential client on it with its HTTP Basic header.
 */
export async function serverWithClient(
  base: TestServer,
  config: TestServerOptions['config'],
): Promise<{ server: TestServer; client: TestClient; asClient: Headers }> {
  const server = await buildTestServer({ testDatabase: base.testDatabase, config });
  const client = await createClient(server.deps);
  return { server, client, asClient: basic(client.uid, client.secret!) };
}

/** RFC 6749 section 5.1: token responses and token errors must not be cached. */
export function expectNoStore(response: LightMyRequestResponse): void {
  expect(response.headers['cache-control']).toBe('no-store');
  expect(response.headers.pragma).toBe('no-cache');
}

/** An OAuth JSON error with exactly this status, code and description. */
export function expectOAuthError(response: LightMyRequestResponse, status: number, error: string, description: string): void {
  expect({ status: response.statusCode, body: response.json() }).toEqual({ status, body: { error, error_description: description } });
  expect(response.headers['content-type']).toMatch(/^application\/json/);
}

/** RFC 6749 section 5.2: the challenge after a failed HTTP Basic attempt. */
export const BASIC_CHALLENGE = 'Basic realm="oauth-service"';

/** RFC 6750 section 3: the challenge of an invalid_token error. */
export const bearerChallenge = (description: string) =>
  `Bearer realm="oauth-service", error="invalid_token", error_description="${description}"`;

/** Whether the server reports the token active, asked by a client the default rules let see it. */
export async function isActive(app: FastifyInstance, token: string, asker: Headers): Promise<boolean> {
  const response = await introspectRequest(app, { token }, asker);
  expect(response.statusCode).toBe(200);
  return (response.json() as { active: boolean }).active;
}

/**
 * The RFC 7662 section 2.2 answer for an active access token that issueToken made with the default lifetime
 * (7200 s): active, token_type Bearer, iat and exp from when it was stored, then `fields` (scope, client_id, sub...).
 */
export function activeAccessToken(record: { createdAt: Date }, fields: Record<string, unknown>): Record<string, unknown> {
  const iat = Math.floor(record.createdAt.getTime() / 1000);
  return { active: true, token_type: 'Bearer', iat, exp: iat + 7200, ...fields };
}

/**
 * The test server's clock runs with real time (plus what tests advance), so a value the server computed
 * during a request is pinned between the clock's readings just before and just after it.
 */
export async function during<T>(clock: { readonly now: Date }, send: () => Promise<T>): Promise<{ response: T; from: number; to: number }> {
  const from = clock.now.getTime();
  const response = await send();
  return { response, from, to: clock.now.getTime() };
}

/** A Unix-seconds timestamp (created_at) stamped at some instant of [from, to]. */
export function expectStampedWithin(value: number, from: number, to: number): void {
  expect(value).toBeGreaterThanOrEqual(Math.floor(from / 1000));
  expect(value).toBeLessThanOrEqual(Math.floor(to / 1000));
}

/**
 * A successful token response (RFC 6749 section 5.1) sent `during` the clock: 200, not cached, exactly a Bearer
 * token of the default lifetime (7200 s) with `fields` (access_token, refresh_token, scope...) and a created_at
 * stamped while it was asked for. Returns the body.
 */
export function expectTokenResponse(sent: { response: LightMyRequestResponse; from: number; to: number }, fields: Record<string, unknown>) {
  const { response, from, to } = sent;
  expect(response.statusCode).toBe(200);
  expectNoStore(response);
  const body = response.json();
  expect(body).toEqual({ token_type: 'Bearer', expires_in: 7200, created_at: expect.any(Number), ...fields });
  expectStampedWithin(body.created_at, from, to);
  return body;
}

/** Seconds left (rounded, reference 17.2) before `deadline` (ms), as computed at some instant of [from, to]. */
export function expectSecondsLeft(value: number, deadline: number, from: number, to: number): void {
  expect(value).toBeGreaterThanOrEqual(Math.round((deadline - to) / 1000));
  expect(value).toBeLessThanOrEqual(Math.round((deadline - from) / 1000));
}
