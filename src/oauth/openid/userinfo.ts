import type { OAuthDeps } from '../deps.js';
import { rememberDpopProof, type CheckedDpopProof } from '../tokens/dpop/dpop-proof.js';
import { InsufficientScope, InvalidRequest, InvalidToken } from '../errors.js';
import { findApplication } from '../clients/applications.js';
import { signingAlgorithmFor } from '../clients/fapi2-profile.js';
import { signedByRetiredKey } from '../tokens/jwt-access-token.js';
import { requestedUserClaims } from './claims-request.js';
import { userClaims, type UserinfoClaims } from './standard-claims.js';
import { findAccessToken } from '../tokens/token-lookup.js';
import { inaccessibleReason, presentationProblem } from '../tokens/token-state.js';
import { subjectFor } from './subject.js';

// The UserInfo endpoint (OpenID Connect Core 1.0 section 5.3): the claims of the user an access token was
// issued for, limited to what its scopes grant (section 5.4), as JSON or, when the client registered
// userinfo_signed_response_alg, as a JWT signed with the shared keys.

// RFC 6750 section 2.1: b64token = 1*( ALPHA / DIGIT / "-" / "." / "_" / "~" / "+" / "/" ) *"=".
const BEARER_SCHEME = /^bearer(?:\s|$)/i;
const BEARER = /^bearer +([A-Za-z0-9\-._~+/]+=*)$/i;

/**
 * The access token a UserInfo request presents: the Authorization header's Bearer credential (RFC 6750 section
 * 2.1) or, for a form POST, the body's access_token (section 2.2); null when it presents none. The query form
 * (section 2.3) is deliberately not read: a token in a URL ends up in logs and Referer headers (section 5.3).
 * Another scheme (Basic, ...) is no token, as at the guard.
 */
export function presentedAccessToken(authorization: string | undefined, bodyToken: string | undefined): string | null {
  const header = authorization?.trim() ?? '';
  const inHeader = BEARER_SCHEME.test(header) && !/^bearer$/i.test(header);
  const inBody = bodyToken !== undefined && bodyToken !== '';
  // RFC 6750 section 2: "Clients MUST NOT use more than one method to transmit the token in each request."
  if (inHeader && inBody) throw new InvalidRequest('The request utilizes more than one method for transmitting the access token.');
  if (inBody) return bodyToken;
  if (!inHeader) return null;
  // A Bearer credential that is not one b64token is an invalid token, not looked up.
  const token = BEARER.exec(header)?.[1];
  if (token === undefined) throw new InvalidToken();
  return token;
}

export type UserinfoResponse = { kind: 'json'; claims: UserinfoClaims } | { kind: 'jwt'; jwt: string };

/**
 * Core 5.3: the claims of the user `accessToken` was issued for. Every refusal is an RFC 6750 section 3.1
 * error: a token that is unknown, revoked or expired is invalid_token (401); one without `openid` is
 * insufficient_scope (403), since adding that scope is what would let it through. `proof`: the request's DPoP
 * proof (the DPoP scheme), checked but not yet recorded against replay; null for a bearer request.
 */
export async function userinfoResponse(
  deps: OAuthDeps,
  accessToken: string,
  proof: CheckedDpopProof | null = null,
): Promise<UserinfoResponse> {
  const record = await findAccessToken(deps, accessToken);
  // RFC 9449 section 7: a bound token only with the DPoP scheme and a proof of its key (sent as Bearer, or a bearer
  // token sent as DPoP, it is no good here).
  const reason = inaccessibleReason(record, deps.now()) ?? presentationProblem(record!, proof?.jkt ?? null);
  if (record === null || reason !== null) throw new InvalidToken(reason ?? 'unknown');
  const retired = signedByRetiredKey(deps, accessToken);
  if (retired !== false && (await retired)) throw new InvalidToken('revoked');
  // A token without a resource owner (client_credentials) describes no End-User: no scope would make it
  // usable here, so it is not insufficient_scope but a token "invalid for other reasons" (RFC 6750 section
  // 3.1): 401 invalid_token. Checked before the scope, so that a 403 never asks for a scope that would not help.
  if (record.resourceOwnerId === null) throw new InvalidToken();
  // RFC 8707, RFC 9700 section 2.3: a token issued for a resource (RFC 8707) is that API's, which could otherwise
  // replay every token it is sent here and read its users' claims (node-oidc-provider refuses it the same way).
  if (record.audience.length > 0) throw new InvalidToken('audience');
  if (!record.scopes.includes('openid')) throw new InsufficientScope(['openid']);
  const user = await deps.stores.users.findById(record.resourceOwnerId);
  // Issue 16: a disabled user's tokens stop working everywhere (their rows were revoked too; this holds
  // even for a token a read replica has not yet seen revoked).
  if (user === null || user.disabledAt !== null) throw new InvalidToken();

  // Core 5.5: with the claims of the granted scopes, those the userinfo member of the claims parameter asked for by name
  // (the consent screen named them); an essential one the user does not hold is left out, never an error (5.5.1).
  const claims = userClaims(user, record.scopes, requestedUserClaims(record.claims, 'userinfo'));
  const application = record.applicationId === null ? null : await findApplication(deps, record.applicationId);
  // A disabled application's tokens are refused (issue 19).
  if (application?.disabledAt) throw new InvalidToken();
  // Core 5.3.2: the sub is the one of the client's ID tokens (Core 8: its sector's, for a pairwise client).
  claims.sub = subjectFor(user, application, deps.config);
  // RFC 9449 section 11.1, issue 29 item 7: the proof is recorded against replay only for a request answered, so
  // refused ones write nothing; the INSERT is the replay check, and a replayed proof gets no claims.
  if (proof) await rememberDpopProof(deps, proof);
  const registered = application?.userinfoSignedResponseAlg ?? null;
  if (application === null || registered === null) return { kind: 'json', claims };
  // A fapi2 client's stored algorithm counts only where FAPI 2.0 allows it (signingAlgorithmFor).
  const alg = signingAlgorithmFor(application, registered, deps.config.keys);
  // Core 5.3.2: a signed response SHOULD carry iss and aud; the issuer is the metadata's (baseUrl, no slash).
  const issuer = deps.config.baseUrl.replace(/\/+$/, '');
  return { kind: 'jwt', jwt: await deps.signer.sign({ ...claims, iss: issuer, aud: application.uid }, { alg, typ: 'JWT' }) };
}
