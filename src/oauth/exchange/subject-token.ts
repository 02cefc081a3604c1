import { assertionIssuer, verifyAssertion, type VerifiedAssertion } from '../assertions/assertion-checks.js';
import { findAssertedUser } from '../assertions/asserted-user.js';
import { trustedIssuer } from '../assertions/jwt-bearer-grant-type.js';
import type { OAuthDeps } from '../deps.js';
import { InvalidRequest } from '../errors.js';
import type { AccessTokenRecord, ApplicationRecord, UserRecord } from '../store.js';
import { signedByRetiredKey } from '../tokens/jwt-access-token.js';
import { findAccessToken } from '../tokens/token-lookup.js';
import { isAccessible } from '../tokens/token-state.js';
import { isDisabled } from '../users/users.js';
import { authorizedScopes, idTokenSubject, type IdTokenSignIn } from './id-token-subject.js';
import { TOKEN_TYPES } from './token-exchange-grant-type.js';

// RFC 8693 section 2.1: the subject_token, the party the new token is for. Three kinds: an access token this server
// issued (found as introspection finds it: active, not revoked, its client not disabled), an ID token this server
// signed for the requesting client (OpenID Connect Core 2) while the user still authorizes that client
// (id-token-subject.ts), or a JWT of a trusted issuer (checked as the JWT bearer grant checks an assertion). Every
// subject is a user here: a client's own token has no one to act for.

export type SubjectToken =
  | { type: 'access_token'; user: UserRecord; token: AccessTokenRecord }
  /** authorizedScopes: the scopes of the client's live tokens for the user, what the ID token's exchange may give. */
  | { type: 'id_token'; user: UserRecord; authorizedScopes: string[]; signIn: IdTokenSignIn }
  | { type: 'jwt'; user: UserRecord; assertion: VerifiedAssertion };

export async function subjectToken(deps: OAuthDeps, value: string, type: string, client: ApplicationRecord): Promise<SubjectToken> {
  switch (type) {
    case TOKEN_TYPES.accessToken: {
      const token = await activeAccessToken(deps, value, 'subject');
      if (token.resourceOwnerId === null) throw new InvalidRequest('The subject token is not for a user.');
      return { type: 'access_token', user: usableUser(await deps.stores.users.findById(token.resourceOwnerId)), token };
    }
    case TOKEN_TYPES.idToken: {
      const { sub, signIn } = await idTokenSubject(deps, value, client);
      const user = usableUser(await deps.stores.users.findBySubject(sub));
      return { type: 'id_token', user, authorizedScopes: await authorizedScopes(deps, client, user), signIn };
    }
    case TOKEN_TYPES.jwt:
      return trustedJwt(deps, value, client);
    default:
      throw new InvalidRequest(`The subject_token_type must be one of ${Object.values(TOKEN_TYPES).slice(0, 3).join(', ')}.`);
  }
}

/** An access token of this server that may be used now; `role` names it in the error (subject or actor). */
export async function activeAccessToken(deps: OAuthDeps, value: string, role: 'subject' | 'actor'): Promise<AccessTokenRecord> {
  const token = await findAccessToken(deps, value);
  const inactive = new InvalidRequest(`The ${role} token is not an active access token of this server.`);
  if (!token || !isAccessible(token, deps.now())) throw inactive;
  const retired = signedByRetiredKey(deps, value);
  if (retired !== false && (await retired)) throw inactive;
  if (token.applicationId !== null && (await deps.stores.applications.findById(token.applicationId))?.disabledAt) throw inactive;
  return token;
}

/**
 * RFC 9449 section 7: a DPoP-bound token (subject or actor) is used only with a proof by its key (`dpopJkt`, the
 * request's proof's thumbprint, null without one); else a stolen bound token would become a bearer one.
 */
export function requireProofOfPossession(token: AccessTokenRecord, dpopJkt: string | null, role: 'subject' | 'actor'): void {
  if (token.dpopJkt !== null && token.dpopJkt !== dpopJkt)
    throw new InvalidRequest(`The ${role} token is DPoP-bound: the request's DPoP proof must be by its key.`);
}

/**
 * RFC 8693 section 2.1 leaves the issued token's lifetime to the server: never past the subject token's expiry (an
 * access token's, a trusted JWT's), so that exchanging again cannot keep a user's access alive past what the subject
 * token allowed; null when it has none (an access token that never expires; an ID token, whose expiry bounds only
 * when it may be exchanged, not the client's authorization).
 */
export function subjectExpiresAt(subject: SubjectToken): Date | null {
  if (subject.type === 'jwt') return subject.assertion.expiresAt;
  if (subject.type !== 'access_token' || subject.token.expiresIn === null) return null;
  return new Date(subject.token.createdAt.getTime() + subject.token.expiresIn * 1000);
}

function usableUser(user: UserRecord | null): UserRecord {
  if (!user || isDisabled(user)) throw new InvalidRequest("The subject token's user is unknown or disabled.");
  return user;
}

/** A trusted issuer's JWT, for a client it lists: the JWT bearer grant's checks, and a user it already knows. */
async function trustedJwt(deps: OAuthDeps, value: string, client: ApplicationRecord): Promise<SubjectToken> {
  const entry = trustedIssuer(deps.config, assertionIssuer(value));
  if (!entry) throw new InvalidRequest("The subject token's issuer (iss) is not trusted here.");
  if (!entry.clients.includes(client.uid)) throw new InvalidRequest("The subject token's issuer does not list this client.");
  // An ID-JAG is for the JWT bearer grant of the server it names, not an exchange.
  if (entry.idJag) throw new InvalidRequest("The subject token's issuer issues ID-JAGs, which are redeemed with the JWT bearer grant.");
  const assertion = await verifyAssertion(deps, value, entry);
  const found = await findAssertedUser(deps, assertion);
  if (!('user' in found)) throw new InvalidRequest("The subject token's subject is not a user here.");
  return { type: 'jwt', user: found.user, assertion };
}
