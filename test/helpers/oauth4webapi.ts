import * as oauth from 'oauth4webapi';

// oauth4webapi as the tests' clients use it against a test server on plain http (loopback).

/** The option letting oauth4webapi talk to http://127.0.0.1 (it refuses plain http otherwise). */
export const insecureHttp = { [oauth.allowInsecureRequests]: true } as const;

/** The server's metadata as oauth4webapi's users discover it (RFC 8414, or OpenID Connect Discovery with `oidc`). */
export async function discovered(baseUrl: string, algorithm: 'oauth2' | 'oidc' = 'oauth2'): Promise<oauth.AuthorizationServer> {
  const issuer = new URL(baseUrl);
  return oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, { ...insecureHttp, algorithm }));
}
