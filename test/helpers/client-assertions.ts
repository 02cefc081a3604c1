import { randomUUID } from 'node:crypto';
import { base64url, exportJWK, exportPKCS8, generateKeyPair, SignJWT, type CryptoKey, type JWK, type JWTPayload } from 'jose';
import { JWT_BEARER_ASSERTION_TYPE } from '../../src/oauth/clients/client-assertion/assertion-methods.js';
import type { OAuthDeps } from '../../src/oauth/deps.js';
import { createClient, type TestClient } from './factories.js';

// Client assertions (RFC 7523 section 2.2) made as a client makes them, through jose, with knobs to break each rule,
// and clients registered for private_key_jwt or client_secret_jwt through the domain.

export interface ClientKey {
  alg: string;
  kid: string;
  privateKey: CryptoKey;
  publicJwk: JWK;
  /** PKCS#8 PEM, as the MCP SDK takes it. */
  privatePem: string;
}

export async function clientKey(alg = 'ES256', kid: string = randomUUID()): Promise<ClientKey> {
  const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true });
  const publicJwk = { ...(await exportJWK(publicKey)), kid, alg, use: 'sig' };
  return { alg, kid, privateKey, publicJwk, privatePem: await exportPKCS8(privateKey) };
}

export const jwksOf = (...keys: ClientKey[]) => ({ keys: keys.map((key) => key.publicJwk) });

export interface AssertionOptions {
  /** The audience; the server's issuer by default. */
  aud?: string | string[];
  iss?: string;
  sub?: string;
  /** Seconds from now (negative: in the past); 60 by default. */
  expiresIn?: number | null;
  /** Seconds from now of iat (positive: issued in the future); 0 by default. */
  issuedIn?: number;
  /** A random UUID by default; null: none; a number: a malformed one. */
  jti?: string | number | null;
  alg?: string;
  kid?: string;
}

/** An assertion signed with a private key (private_key_jwt) or the secret (client_secret_jwt, HS256). */
export async function clientAssertion(
  clientId: string,
  key: ClientKey | string,
  issuer: string,
  options: AssertionOptions = {},
): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  const { aud = issuer, iss = clientId, sub = clientId, expiresIn = 60, issuedIn = 0, jti = randomUUID() } = options;
  const claims = { iss, sub, aud, iat: now + issuedIn, ...(expiresIn !== null && { exp: now + expiresIn }), ...(jti !== null && { jti }) };
  const signingKey = typeof key === 'string' ? new TextEncoder().encode(key) : key.privateKey;
  const alg = options.alg ?? (typeof key === 'string' ? 'HS256' : key.alg);
  const kid = options.kid ?? (typeof key === 'string' ? undefined : key.kid);
  // A JWTPayload's jti is a string: a test's malformed one is what the server must refuse.
  return new SignJWT(claims as JWTPayload).setProtectedHeader({ alg, typ: 'JWT', ...(kid !== undefined && { kid }) }).sign(signingKey);
}

/** An unsecured JWT (RFC 7519 section 6, alg none): what no verifier may accept. */
export function unsecuredAssertion(claims: Record<string, unknown>): string {
  const part = (value: unknown) => base64url.encode(JSON.stringify(value));
  return `${part({ alg: 'none', typ: 'JWT' })}.${part(claims)}.`;
}

export const assertionParams = (assertion: string, extra: Record<string, string> = {}) => ({
  client_assertion_type: JWT_BEARER_ASSERTION_TYPE,
  client_assertion: assertion,
  ...extra,
});

/** A confidential client registered for private_key_jwt with these keys inline, or at jwksUri. */
export async function privateKeyJwtClient(deps: OAuthDeps, keys: { jwks?: object; jwksUri?: string }): Promise<TestClient> {
  return createClient(deps, {
    tokenEndpointAuthMethod: 'private_key_jwt',
    ...(keys.jwks !== undefined && { jwks: JSON.stringify(keys.jwks) }),
    ...(keys.jwksUri !== undefined && { jwksUri: keys.jwksUri }),
  });
}
