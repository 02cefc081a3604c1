import * as oauth from 'oauth4webapi';
import { form } from './test-server.js';

// oauth4webapi as the tests' clients use it against a test server on plain http (loopback), and the authorization
// requests they build with it.

/** The option letting oauth4webapi talk to http://127.0.0.1 (it refuses plain http otherwise). */
export const insecureHttp = { [oauth.allowInsecureRequests]: true } as const;

/** The server's metadata as oauth4webapi's users discover it (RFC 8414, or OpenID Connect Discovery with `oidc`). */
export async function discovered(baseUrl: string, algorithm: 'oauth2' | 'oidc' = 'oauth2'): Promise<oauth.AuthorizationServer> {
  const issuer = new URL(baseUrl);
  return oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, { ...insecureHttp, algorithm }));
}

/**
 * An authorization code request with PKCE (RFC 7636 section 4.3, S256), for scope read unless given, its challenge
 * computed by oauth4webapi from `verifier` as a client computes it, not by the server's code.
 */
export async function pkceCodeRequest(request: {
  verifier: string;
  redirectUri: string;
  state: string;
  scope?: string;
}): Promise<Record<string, string>> {
  return {
    response_type: 'code',
    redirect_uri: request.redirectUri,
    scope: request.scope ?? 'read',
    state: request.state,
    code_challenge: await oauth.calculatePKCECodeChallenge(request.verifier),
    code_challenge_method: 'S256',
  };
}

/**
 * An authorization request as oauth4webapi's users build one: response_type code, PKCE S256 and a random state, with
 * `parameters` (scope, and a repeatable one such as RFC 8707's resource as an array). The state and verifier check
 * the answer.
 */
export async function oauth4webapiCodeRequest(
  as: oauth.AuthorizationServer,
  oauthClient: oauth.Client,
  redirectUri: string,
  { scope, ...parameters }: { scope: string } & Record<string, string | string[]>,
): Promise<{ url: string; codeVerifier: string; state: string }> {
  const codeVerifier = oauth.generateRandomCodeVerifier();
  const state = oauth.generateRandomState();
  const url = new URL(as.authorization_endpoint!);
  const request = await pkceCodeRequest({ verifier: codeVerifier, redirectUri, state, scope });
  url.search = form({ client_id: oauthClient.client_id, ...request, ...parameters });
  return { url: url.href, codeVerifier, state };
}
