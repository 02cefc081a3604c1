import { randomBytes } from 'node:crypto';
import { decodeProtectedHeader } from 'jose';
import type { ActorClaim } from '../exchange/actor-claim.js';
import { authorizationIssuer } from '../issuer.js';
import type { OAuthDeps } from '../deps.js';
import { signInClaims } from '../authentication-context.js';
import { resourceOwnerSubject } from '../openid/subject.js';
import type { AuthorizationDetail } from '../resources/authorization-details.js';
import { formatScopes } from '../scopes.js';
import type { ApplicationRecord } from '../store.js';

// RFC 9068 JWT access tokens: what an API can check without asking this server. The server keeps the token's
// hash like an opaque token's, so revocation, introspection, token info, the local guard, cleanup and reuse
// detection treat both alike, and a revoked JWT is inactive at introspection at once.

export interface JwtAccessTokenInput {
  application: ApplicationRecord | null;
  resourceOwnerId: number | null;
  scopes: readonly string[];
  audience: readonly string[];
  issuedAt: Date;
  expiresIn: number | null;
  authTime: Date | null;
  amr: readonly string[];
  acr: string | null;
  /** RFC 9449 section 6.1: the key the token is bound to, as cnf.jkt. */
  dpopJkt?: string | null;
  /** RFC 8693 section 4.1: the actor of an exchanged token, as act. */
  act?: ActorClaim | null;
  /** RFC 9396 section 9.1: the authorization_details granted, as the claim of that name. */
  authorizationDetails?: readonly AuthorizationDetail[];
}

/** Section 2.2's claims, signed with the current RS256 key, header typ "at+jwt" (section 2.1). */
export async function signJwtAccessToken(deps: OAuthDeps, input: JwtAccessTokenInput): Promise<string> {
  const issuer = authorizationIssuer(deps.config.baseUrl);
  const iat = Math.floor(input.issuedAt.getTime() / 1000);
  const clientId = input.application?.uid ?? null;
  const subject = input.resourceOwnerId === null ? clientId : await subjectOf(deps, input.resourceOwnerId, input.application);
  const claims = {
    iss: issuer,
    // Section 3: aud is required; a token requested without a resource is for this server's own APIs.
    aud: input.audience.length === 0 ? issuer : input.audience.length === 1 ? input.audience[0] : [...input.audience],
    ...(input.expiresIn !== null && { exp: iat + input.expiresIn }),
    iat,
    jti: randomBytes(16).toString('base64url'),
    ...(subject !== null && { sub: subject }),
    ...(clientId !== null && { client_id: clientId }),
    ...(input.scopes.length > 0 && { scope: formatScopes([...input.scopes]) }),
    // Section 2.2.1: the sign-in the token descends from (auth_time, acr, amr), which RFC 9470 step-up checks.
    ...signInClaims(input, deps.config.authentication.acr),
    ...(input.dpopJkt && { cnf: { jkt: input.dpopJkt } }),
    ...(input.act && { act: input.act }),
    ...(input.authorizationDetails && input.authorizationDetails.length > 0 && { authorization_details: input.authorizationDetails }),
  };
  return deps.signer.sign(claims, { typ: 'at+jwt' });
}

// Section 2.2: sub is the resource owner; the sub the client sees in its ID tokens (OpenID Connect Core 8, pairwise for
// a pairwise client) when the user exists.
async function subjectOf(deps: OAuthDeps, resourceOwnerId: number, application: ApplicationRecord | null): Promise<string> {
  return (await resourceOwnerSubject(deps, resourceOwnerId, application)) ?? String(resourceOwnerId);
}

/**
 * `keys retire` (issue 29 item 12): whether `value`, a token this server stored (found by its value, so its header is
 * this server's own), is a JWT signed by a key retired since. Such a token is no longer accepted anywhere this server
 * answers for it (introspection, token info, UserInfo), on every instance within the signer's key-list lifetime
 * (token-signer.ts). False at once, without a promise, for an opaque token (no dot): the hot paths pay nothing.
 */
export function signedByRetiredKey(deps: Pick<OAuthDeps, 'signer'>, value: string): false | Promise<boolean> {
  if (!value.includes('.')) return false;
  let kid: unknown;
  try {
    kid = decodeProtectedHeader(value).kid;
  } catch {
    return false;
  }
  return typeof kid === 'string' && deps.signer.isRetired(kid);
}
