import type { OAuthDeps } from '../deps.js';
import { idTokenFor } from '../openid/id-token-issuer.js';
import { mintAccessToken, type MintedToken, type TokenRequest } from '../tokens/token-issuer.js';

/** A token response made but not yet stored: the access (and refresh) token, and its ID token when one is due. */
export interface MintedResponse {
  minted: MintedToken;
  idToken: string | null;
}

/**
 * RFC 6749 section 5.1 and OpenID Connect Core 3.1.3.3 (12.2 for a refresh): the response carries the tokens
 * together or it is an error. Everything that can fail on its way (a key that does not decrypt, a signing key that
 * cannot be made) is done here, before the grant writes anything: a failed request leaves no live token behind and
 * the code or refresh token unused, so the client can try again once the server is fixed (issue 31 item 6).
 */
export async function mintWithIdToken(deps: OAuthDeps, request: TokenRequest, nonce: string | null = null): Promise<MintedResponse> {
  const minted = await mintAccessToken(deps, request);
  const { application } = request;
  const idToken = await idTokenFor(deps, { application, token: minted.input, accessToken: minted.accessToken, nonce });
  return { minted, idToken };
}
