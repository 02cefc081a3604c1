import { randomBytes } from 'node:crypto';
import type { LightMyRequestResponse } from 'fastify';
import { createLocalJWKSet, jwtVerify, type JSONWebKeySet, type JWTPayload } from 'jose';
import { expect } from 'vitest';
import type { OAuthDeps } from '../../src/oauth/deps.js';
import type { ApplicationRecord, ResourceRecord } from '../../src/oauth/store.js';
import { authorizeUrl, CALLBACK, hiddenFields, locationParameters, type UserAgent } from './end-user.js';
import { listeningTestServer } from './listening-server.js';
import { basic, tokenRequest } from './oauth-requests.js';
import { buildTestServer, type TestServer, type TestServerOptions } from './test-server.js';

// OpenID Connect test servers and the code flow driven through HTTP as a browser and a relying party would.

export { CALLBACK };

/** A registered resource (RFC 8707) whose access tokens are RFC 9068 JWTs of 900 s, signed with the OpenID keys. */
export function createJwtResource(deps: OAuthDeps, uri: string, scopes = ['read']): Promise<ResourceRecord> {
  return deps.stores.resources.create({
    uri,
    name: `JWT API ${uri}`,
    scopes,
    tokenFormat: 'jwt',
    accessTokenLifetime: 900,
    serverClientId: null,
  });
}

const newKeyEncryptionKey = () => randomBytes(32).toString('base64');

/** openid.enabled needs a key-encryption key; every OpenID test server gets its own. */
export function openIdServer(options: TestServerOptions = {}): Promise<TestServer> {
  return buildTestServer({
    ...options,
    config: { openid: { enabled: true }, ...options.config },
    env: { KEY_ENCRYPTION_KEY: newKeyEncryptionKey(), ...options.env },
  });
}

/** An OpenID test server listening on the address it has as baseUrl, for a client library that discovers it. */
export function listeningOpenIdServer(config: TestServerOptions['config'] = {}): Promise<TestServer & { baseUrl: string }> {
  return listeningTestServer({ openid: { enabled: true }, ...config }, { env: { KEY_ENCRYPTION_KEY: newKeyEncryptionKey() } });
}

/** GET /oauth/authorize, approving on the consent page when one is shown; the redirect to the client. */
export async function authorize(agent: UserAgent, parameters: Record<string, string>): Promise<LightMyRequestResponse> {
  const response = await agent.request({ method: 'GET', url: authorizeUrl(parameters) });
  if (response.statusCode !== 200) return response;
  // The consent form's hidden fields carry its CSRF token.
  return agent.post('/oauth/authorize', hiddenFields(response.body));
}

/** The code flow up to the token response: authorize as `agent`, exchange the code with the client's secret. */
export async function codeFlow(
  server: TestServer,
  agent: UserAgent,
  client: { application: ApplicationRecord; plainSecret: string | null },
  parameters: Record<string, string> = {},
): Promise<{ code: string; response: LightMyRequestResponse }> {
  const redirect = await authorize(agent, {
    client_id: client.application.uid,
    redirect_uri: CALLBACK,
    response_type: 'code',
    scope: 'openid',
    ...parameters,
  });
  expect(redirect.statusCode, redirect.body.slice(0, 300)).toBeGreaterThanOrEqual(302);
  const code = locationParameters(redirect).get('code');
  if (!code) throw new Error(`no code in ${String(redirect.headers.location)}`);
  const response = await tokenRequest(
    server.app,
    { grant_type: 'authorization_code', code, redirect_uri: CALLBACK },
    basic(client.application.uid, client.plainSecret ?? ''),
  );
  return { code, response };
}

/** The kids a running service's JWKS lists, sorted. */
export const jwksKids = async (baseUrl: string) =>
  ((await (await fetch(`${baseUrl}/oauth/jwks`)).json()) as { keys: Array<{ kid: string }> }).keys.map((key) => key.kid).sort();

/** The server's JWKS, as a relying party fetches it. */
export async function jwksOf(server: TestServer): Promise<JSONWebKeySet> {
  const response = await server.app.inject({ method: 'GET', url: '/oauth/jwks' });
  return response.json() as JSONWebKeySet;
}

/** Verifies an ID token as a relying party does (signature by the JWKS, iss, aud) and returns its claims. */
export async function verifiedIdToken(server: TestServer, idToken: string, clientId: string): Promise<JWTPayload> {
  const { payload } = await jwtVerify(idToken, createLocalJWKSet(await jwksOf(server)), {
    issuer: server.config.baseUrl.replace(/\/+$/, ''),
    audience: clientId,
  });
  return payload;
}
