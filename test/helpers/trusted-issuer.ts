import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK, type JWTPayload } from 'jose';
import { JWT_BEARER_GRANT } from '../../src/oauth/assertions/jwt-bearer-grant-type.js';
import { createApplication } from '../../src/oauth/clients/applications.js';
import type { OAuthDeps } from '../../src/oauth/deps.js';
import type { TestClient } from './factories.js';

export { JWT_BEARER_GRANT };

// A trusted issuer for the JWT bearer grant's tests (issue 34 item 3): its public key served as a JWK Set by a small
// local HTTP server (what config trustedIssuers[].jwksUri names), and assertions signed with its private key.

export interface AssertionIssuer {
  jwksUri: string;
  /** The public key as a JWK, also what a forger of an HS256 assertion would use as its secret. */
  publicJwk: JWK;
  sign(claims: JWTPayload, options?: { typ?: string; key?: CryptoKey; alg?: string }): Promise<string>;
  close(): Promise<void>;
}

export async function assertionIssuer(): Promise<AssertionIssuer> {
  const { publicKey, privateKey } = await generateKeyPair('ES256');
  const publicJwk = { ...(await exportJWK(publicKey)), kid: 'idp-1', alg: 'ES256', use: 'sig' };
  const body = JSON.stringify({ keys: [publicJwk] });
  const server = createServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'application/jwk-set+json' }).end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    jwksUri: `http://127.0.0.1:${port}/jwks`,
    publicJwk,
    sign: (claims, { typ, key = privateKey, alg = 'ES256' } = {}) =>
      new SignJWT(claims).setProtectedHeader({ alg, kid: 'idp-1', ...(typ !== undefined && { typ }) }).sign(key),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** Claims of a fresh assertion: this jti, issued now, for five minutes, unless `claims` says otherwise. */
export function assertionClaims(claims: JWTPayload & { iss: string; aud: string; sub: string }): JWTPayload {
  const now = Math.floor(Date.now() / 1000);
  return { jti: randomUUID(), iat: now, exp: now + 240, ...claims };
}

/** A confidential client with this client_id whose grant types name the JWT bearer grant (the per-client opt-in). */
export async function jwtBearerClient(deps: OAuthDeps, uid: string, grantTypes: string[] = [JWT_BEARER_GRANT]): Promise<TestClient> {
  const { application, plainSecret } = await createApplication(
    deps,
    { name: `Agent ${uid}`, redirectUri: 'https://agent.example.com/callback', scopes: '', confidential: true },
    { uid },
  );
  const updated = await deps.stores.applicationAdmin.update(application.id, { grantTypes });
  return { application: updated!, secret: plainSecret, uid };
}
