import { createHash } from 'node:crypto';
import type { LightMyRequestResponse } from 'fastify';
import { createLocalJWKSet, decodeProtectedHeader, jwtVerify, type JSONWebKeySet, type JWTPayload } from 'jose';
import { expect } from 'vitest';
import type { ApplicationFields } from '../../src/oauth/clients/applications.js';
import type { ApplicationRecord, UserRecord } from '../../src/oauth/store.js';
import { createClient, hiddenFields, locationParameters, PASSWORD, signedIn, type UserAgent } from '../helpers/end-user.js';
import { authorize, CALLBACK, openIdServer } from '../helpers/openid.js';
import { basic, tokenRequest } from '../helpers/oauth-requests.js';
import type { TestServer, TestServerOptions } from '../helpers/test-server.js';
import { ALICE } from '../helpers/user-claims.js';

// The OpenID Foundation conformance suite's Basic OP and Config OP modules, replayed over HTTP (issue 16). Each
// module file starts one OpenID Provider from here: https issuer, a user with every standard claim, a
// confidential client registered as the suite's client is, and the suite's own checks of an ID token.

export const ISSUER = 'https://op.example.com';
export { CALLBACK };

/** The user the suite signs in as, with every claim of Core 5.1 set (the oidcc-scope-* modules read them). */
export const CLAIMS = ALICE;

/**
 * The claim names each scope releases (Core 5.4), as UserInfo spells them: copied from the specification, not imported
 * from src/oauth/openid/standard-claims.ts, so that a change to the product's list fails the suite's modules.
 */
export const SCOPE_CLAIMS = {
  profile: [
    'name',
    'family_name',
    'given_name',
    'middle_name',
    'nickname',
    'preferred_username',
    'profile',
    'picture',
    'website',
    'gender',
    'birthdate',
    'zoneinfo',
    'locale',
    'updated_at',
  ],
  email: ['email', 'email_verified'],
  address: ['address'],
  phone: ['phone_number', 'phone_number_verified'],
} as const;

export interface Client {
  application: ApplicationRecord;
  plainSecret: string | null;
}

export interface OpenIdProvider {
  server: TestServer;
  user: UserRecord;
  client: Client;
  /** A browser signed in as the user. */
  agent: UserAgent;
  newClient(fields?: Partial<ApplicationFields>): Promise<Client>;
  /** A new browser, signed in again as the user. */
  signIn(): Promise<UserAgent>;
  close(): Promise<void>;
}

let users = 0;

export async function openIdProvider(options: TestServerOptions = {}): Promise<OpenIdProvider> {
  const server = await openIdServer({
    ...options,
    config: { baseUrl: ISSUER, grantFlows: ['authorization_code', 'refresh_token'], ...options.config },
  });
  const username = `suite-user-${++users}`;
  const user = await server.deps.stores.userAdmin.create({ username, passwordHash: await server.deps.passwords.hash(PASSWORD), ...CLAIMS });
  const newClient = (fields: Partial<ApplicationFields> = {}) => createClient(server.deps, { name: 'Conformance Suite', ...fields });
  const signIn = () => signedIn(server.app, username);
  return { server, user, client: await newClient(), agent: await signIn(), newClient, signIn, close: () => server.close() };
}

/** An absolute URL of the issuer as the path inject() takes. */
export function pathOf(url: unknown): string {
  expect(typeof url).toBe('string');
  const parsed = new URL(url as string);
  expect(parsed.origin).toBe(ISSUER);
  return parsed.pathname + parsed.search;
}

/** Discovery 1.0 section 4: the document at the issuer's /.well-known/openid-configuration. */
export async function discover(server: TestServer): Promise<Record<string, unknown>> {
  const response = await server.app.inject({ method: 'GET', url: '/.well-known/openid-configuration' });
  expect(response.statusCode).toBe(200);
  expect(response.headers['content-type']).toMatch(/^application\/json/);
  return response.json();
}

/** The keys at the discovered jwks_uri. */
export async function discoveredJwks(server: TestServer): Promise<JSONWebKeySet> {
  const response = await server.app.inject({ method: 'GET', url: pathOf((await discover(server)).jwks_uri) });
  expect(response.statusCode).toBe(200);
  return response.json() as JSONWebKeySet;
}

/** The suite's authorization request: response_type=code, scope=openid, a state and a nonce unless overridden. */
export function suiteRequest(client: Client, parameters: Record<string, string | undefined> = {}): Record<string, string> {
  const all: Record<string, string | undefined> = {
    client_id: client.application.uid,
    redirect_uri: CALLBACK,
    response_type: 'code',
    scope: 'openid',
    state: `state-${Math.random().toString(36).slice(2)}`,
    nonce: `nonce-${Math.random().toString(36).slice(2)}`,
    ...parameters,
  };
  return Object.fromEntries(Object.entries(all).filter((entry): entry is [string, string] => entry[1] !== undefined));
}

/** The redirect back to the client: a code, the request's state, and the issuer (RFC 9207). */
export function codeFrom(redirect: LightMyRequestResponse, request: Record<string, string>): string {
  expect(redirect.statusCode, redirect.body.slice(0, 300)).toBeGreaterThanOrEqual(302);
  const location = String(redirect.headers.location);
  expect(location.startsWith(`${CALLBACK}?`), `${redirect.statusCode} ${location} ${redirect.body.slice(0, 300)}`).toBe(true);
  const parameters = locationParameters(redirect);
  expect(parameters.get('error'), location).toBeNull();
  expect(parameters.get('state')).toBe(request.state ?? null);
  expect(parameters.get('iss')).toBe(ISSUER);
  const code = parameters.get('code');
  expect(code).toBeTruthy();
  return code!;
}

export type ClientAuthentication = 'client_secret_basic' | 'client_secret_post';

/** POST to the discovered token endpoint, authenticating as the suite's client does. */
export function tokenEndpoint(
  op: OpenIdProvider,
  parameters: Record<string, string>,
  { client = op.client, method = 'client_secret_basic' }: { client?: Client; method?: ClientAuthentication } = {},
): Promise<LightMyRequestResponse> {
  const { uid } = client.application;
  const secret = client.plainSecret ?? '';
  if (method === 'client_secret_post') return tokenRequest(op.server.app, { ...parameters, client_id: uid, client_secret: secret });
  return tokenRequest(op.server.app, parameters, basic(uid, secret));
}

export interface CodeFlowResult {
  code: string;
  tokens: { access_token: string; token_type: string; id_token: string; refresh_token?: string; scope?: string; expires_in?: number };
  claims: JWTPayload;
  request: Record<string, string>;
}

/** The whole code flow as the suite runs it: authorize (consenting if asked), exchange, validate the ID token. */
export async function suiteCodeFlow(
  op: OpenIdProvider,
  parameters: Record<string, string | undefined> = {},
  { agent = op.agent, client = op.client, method }: { agent?: UserAgent; client?: Client; method?: ClientAuthentication } = {},
): Promise<CodeFlowResult> {
  const request = suiteRequest(client, parameters);
  const code = codeFrom(await authorize(agent, request), request);
  return { ...(await exchange(op, code, { client, method, nonce: request.nonce })), code, request };
}

/** The code exchange and the suite's checks of the token response and of its ID token. */
export async function exchange(
  op: OpenIdProvider,
  code: string,
  { client = op.client, method, nonce }: { client?: Client; method?: ClientAuthentication; nonce?: string } = {},
): Promise<Omit<CodeFlowResult, 'code' | 'request'>> {
  const response = await tokenEndpoint(op, { grant_type: 'authorization_code', code, redirect_uri: CALLBACK }, { client, method });
  expect(response.statusCode, response.body).toBe(200);
  expect(response.headers['cache-control']).toBe('no-store');
  const tokens = response.json() as CodeFlowResult['tokens'];
  expect(tokens.token_type.toLowerCase()).toBe('bearer');
  expect(typeof tokens.access_token).toBe('string');
  const claims = await validIdToken(op, tokens.id_token, client, { accessToken: tokens.access_token, nonce });
  return { tokens, claims };
}

/**
 * The suite's ID token checks (Core 3.1.3.7): a JWS signed by a key at the discovered jwks_uri with an algorithm
 * other than none, iss the discovered issuer, aud the client, azp when present the client, exp in the future,
 * iat not in the future, a sub, the request's nonce when one was sent, and at_hash (Core 3.1.3.6) when given.
 */
export async function validIdToken(
  op: OpenIdProvider,
  idToken: string,
  client: Client,
  { accessToken, nonce }: { accessToken?: string; nonce?: string } = {},
): Promise<JWTPayload> {
  expect(typeof idToken, 'an id_token in the token response').toBe('string');
  const { server } = op;
  const header = decodeProtectedHeader(idToken);
  expect(header.alg).not.toBe('none');
  expect(header.kid).toEqual(expect.any(String));
  const now = server.clock.now;
  const { payload } = await jwtVerify(idToken, createLocalJWKSet(await discoveredJwks(server)), {
    issuer: (await discover(server)).issuer as string,
    audience: client.application.uid,
    currentDate: now,
    requiredClaims: ['iss', 'sub', 'aud', 'exp', 'iat'],
  });
  const seconds = Math.floor(now.getTime() / 1000);
  expect(payload.exp).toBeGreaterThan(seconds);
  expect(payload.iat).toBeLessThanOrEqual(seconds + 5);
  expect(payload.sub).toBe(op.user.subject);
  if (payload.azp !== undefined) expect(payload.azp).toBe(client.application.uid);
  if (nonce !== undefined) expect(payload.nonce).toBe(nonce);
  if (accessToken !== undefined) expect(payload.at_hash).toBe(leftHalfHash(accessToken, header.alg!));
  return payload;
}

/** Core 3.1.3.6: the base64url left half of the hash the alg's own hash function makes of the ASCII value. */
export function leftHalfHash(value: string, alg: string): string {
  const digest = createHash(alg === 'EdDSA' ? 'sha512' : `sha${alg.slice(2)}`)
    .update(value, 'ascii')
    .digest();
  return digest.subarray(0, digest.length / 2).toString('base64url');
}

/** GET the discovered UserInfo endpoint with the token in the Authorization header. */
export async function userInfo(op: OpenIdProvider, accessToken: string): Promise<LightMyRequestResponse> {
  const url = pathOf((await discover(op.server)).userinfo_endpoint);
  return op.server.app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${accessToken}` } });
}

/**
 * The oidcc-codereuse* check: a second exchange of `code` is invalid_grant, and the access token the first exchange
 * issued is revoked (RFC 6749 section 4.1.2's SHOULD), so UserInfo refuses it.
 */
export async function expectCodeReuseRefused(op: OpenIdProvider, code: string, firstAccessToken: string): Promise<void> {
  const reuse = await tokenEndpoint(op, { grant_type: 'authorization_code', code, redirect_uri: CALLBACK });
  expect(reuse.statusCode).toBe(400);
  expect(reuse.json().error).toBe('invalid_grant');
  const revoked = await userInfo(op, firstAccessToken);
  expect(revoked.statusCode).toBe(401);
  expect(revoked.headers['www-authenticate']).toContain('error="invalid_token"');
}

/** The claims of a UserInfo response, after the suite's checks: 200, JSON, sub the ID token's. */
export async function userInfoClaims(op: OpenIdProvider, accessToken: string, subject: unknown): Promise<Record<string, unknown>> {
  const response = await userInfo(op, accessToken);
  expect(response.statusCode, response.body).toBe(200);
  expect(response.headers['content-type']).toMatch(/^application\/json/);
  const claims = response.json() as Record<string, unknown>;
  expect(claims.sub).toBe(subject);
  return claims;
}

/** The error redirected to the client (Core 3.1.2.6), after checking it carries the request's state. */
export function redirectedError(redirect: LightMyRequestResponse, request: Record<string, string>): string | null {
  expect(redirect.statusCode).toBe(302);
  const location = String(redirect.headers.location);
  expect(location.startsWith(`${CALLBACK}?`), location).toBe(true);
  const parameters = locationParameters(redirect);
  expect(parameters.get('code')).toBeNull();
  expect(parameters.get('state')).toBe(request.state ?? null);
  return parameters.get('error');
}

/**
 * A redirect to /login (the OP asking the user to authenticate again), then the sign-in and the way back to
 * the authorization, consenting if asked: the redirect to the client.
 */
export async function signInWhenAsked(
  op: OpenIdProvider,
  agent: UserAgent,
  redirect: LightMyRequestResponse,
): Promise<LightMyRequestResponse> {
  expect(redirect.statusCode, redirect.body.slice(0, 300)).toBe(302);
  expect(redirect.headers.location).toBe('/login');
  const page = await agent.request({ method: 'GET', url: '/login' });
  expect(page.statusCode, 'the login form is shown, although a session exists').toBe(200);
  const loggedIn = await agent.post('/login', { username: op.user.username, password: PASSWORD });
  expect(loggedIn.statusCode, loggedIn.body.slice(0, 300)).toBe(303);
  const back = await agent.request({ method: 'GET', url: String(loggedIn.headers.location) });
  if (back.statusCode !== 200) return back;
  return agent.post('/oauth/authorize', hiddenFields(back.body));
}

/**
 * The oidcc-scope-* check: UserInfo releases every claim of each requested scope (the suite's user has them all)
 * and none of the scopes not requested (Core 5.4).
 */
export function expectClaimsOfScopes(claims: Record<string, unknown>, scopes: Array<keyof typeof SCOPE_CLAIMS>): void {
  const expected = ['sub', ...scopes.flatMap((scope) => SCOPE_CLAIMS[scope])];
  expect(Object.keys(claims).sort()).toEqual(expected.sort());
}
