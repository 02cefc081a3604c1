import type { OAuthDeps } from '../deps.js';
import { rememberDpopProof, type CheckedDpopProof } from '../tokens/dpop/dpop-proof.js';
import { InsufficientScope, InvalidRequest, InvalidToken } from '../errors.js';
import { findApplication } from '../clients/applications.js';
import { signedByRetiredKey } from '../tokens/jwt-access-token.js';
import type { UserRecord } from '../store.js';
import { findAccessToken } from '../tokens/token-lookup.js';
import { inaccessibleReason, presentationProblem } from '../tokens/token-state.js';
import { subjectFor } from './subject.js';

// The UserInfo endpoint (OpenID Connect Core 1.0 section 5.3): the claims of the user an access token was
// issued for, limited to what its scopes grant (section 5.4), as JSON or, when the client registered
// userinfo_signed_response_alg, as a JWT signed with the shared keys.

/** Core 5.4: the claims each scope value asks for. */
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
} as const satisfies Record<string, readonly string[]>;

export type ClaimScope = keyof typeof SCOPE_CLAIMS;
export type ScopedClaim = (typeof SCOPE_CLAIMS)[ClaimScope][number];

/** The user claims this provider can return (discovery's claims_supported adds the ID token's own). */
export const CLAIMS_SUPPORTED: readonly string[] = ['sub', ...Object.values(SCOPE_CLAIMS).flat()];

/** Core 5.1.1: the members of the address claim, all strings. */
const ADDRESS_MEMBERS = ['formatted', 'street_address', 'locality', 'region', 'postal_code', 'country'] as const;

export type ClaimValue = string | number | boolean | Record<string, string>;
export type UserinfoClaims = { sub: string } & Record<string, ClaimValue>;

// Core 5.3.2: a claim without a value is omitted, never null or the empty string; hence text() and the
// verified flags only next to the value they vouch for.
const text = (value: string | null): string | null => (value === null || value === '' ? null : value);

const CLAIM_VALUES: Record<ScopedClaim, (user: UserRecord) => ClaimValue | null> = {
  name: (user) => text(user.name),
  family_name: (user) => text(user.familyName),
  given_name: (user) => text(user.givenName),
  middle_name: (user) => text(user.middleName),
  nickname: (user) => text(user.nickname),
  preferred_username: (user) => text(user.preferredUsername),
  profile: (user) => text(user.profile),
  picture: (user) => text(user.picture),
  website: (user) => text(user.website),
  gender: (user) => text(user.gender),
  birthdate: (user) => text(user.birthdate),
  zoneinfo: (user) => text(user.zoneinfo),
  locale: (user) => text(user.locale),
  // Core 5.1: updated_at is a JSON number of seconds since the epoch.
  updated_at: (user) => Math.floor(user.profileUpdatedAt.getTime() / 1000),
  email: (user) => text(user.email),
  email_verified: (user) => (text(user.email) === null ? null : user.emailVerified),
  address: (user) => addressClaim(user.address),
  phone_number: (user) => text(user.phoneNumber),
  phone_number_verified: (user) => (text(user.phoneNumber) === null ? null : user.phoneNumberVerified),
};

/**
 * Core 5.1.1's address object from its stored JSON: only the known string members. Text that is not such an
 * object (a hand-edited row, a truncated write) gives no address claim rather than a failed request.
 */
export function addressClaim(stored: string | null): Record<string, string> | null {
  if (stored === null || stored.trim() === '') return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(stored);
  } catch {
    return null;
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) return null;
  const address: Record<string, string> = {};
  for (const member of ADDRESS_MEMBERS) {
    const value = (parsed as Record<string, unknown>)[member];
    if (typeof value === 'string' && value !== '') address[member] = value;
  }
  return Object.keys(address).length === 0 ? null : address;
}

/** Core 5.3.2 and 5.4: `sub` always, then each claim of the granted scopes that has a value. */
export function userClaims(user: UserRecord, scopes: readonly string[]): UserinfoClaims {
  const claims: UserinfoClaims = { sub: user.subject };
  for (const scope of Object.keys(SCOPE_CLAIMS) as ClaimScope[]) {
    if (!scopes.includes(scope)) continue;
    for (const claim of SCOPE_CLAIMS[scope]) {
      const value = CLAIM_VALUES[claim](user);
      if (value !== null) claims[claim] = value;
    }
  }
  return claims;
}

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
  if (!record.scopes.includes('openid')) throw new InsufficientScope(['openid']);
  // A token without a resource owner (client_credentials) describes no End-User: no scope would make it
  // usable here, so it is not insufficient_scope but a token "invalid for other reasons" (RFC 6750 section
  // 3.1): 401 invalid_token.
  if (record.resourceOwnerId === null) throw new InvalidToken();
  const user = await deps.stores.users.findById(record.resourceOwnerId);
  // Issue 16: a disabled user's tokens stop working everywhere (their rows were revoked too; this holds
  // even for a token a read replica has not yet seen revoked).
  if (user === null || user.disabledAt !== null) throw new InvalidToken();

  const claims = userClaims(user, record.scopes);
  const application = record.applicationId === null ? null : await findApplication(deps, record.applicationId);
  // A disabled application's tokens are refused (issue 19).
  if (application?.disabledAt) throw new InvalidToken();
  // Core 5.3.2: the sub is the one of the client's ID tokens (Core 8: its sector's, for a pairwise client).
  claims.sub = subjectFor(user, application, deps.config);
  // RFC 9449 section 11.1, issue 29 item 7: the proof is recorded against replay only for a request answered, so
  // refused ones write nothing; the INSERT is the replay check, and a replayed proof gets no claims.
  if (proof) await rememberDpopProof(deps, proof);
  const alg = application?.userinfoSignedResponseAlg ?? null;
  if (application === null || alg === null) return { kind: 'json', claims };
  // Core 5.3.2: a signed response SHOULD carry iss and aud; the issuer is the metadata's (baseUrl, no slash).
  const issuer = deps.config.baseUrl.replace(/\/+$/, '');
  return { kind: 'jwt', jwt: await deps.signer.sign({ ...claims, iss: issuer, aud: application.uid }, { alg, typ: 'JWT' }) };
}
