import { createLocalJWKSet, errors, jwtVerify } from 'jose';
import { assertionIssuer, verifyAssertion, type VerifiedAssertion } from '../assertions/assertion-checks.js';
import { findAssertedUser } from '../assertions/asserted-user.js';
import { trustedIssuer } from '../assertions/jwt-bearer-grant-type.js';
import type { OAuthDeps } from '../deps.js';
import { InvalidRequest } from '../errors.js';
import { authorizationIssuer } from '../issuer.js';
import { publishedJwks } from '../keys/signing-key-service.js';
import { SIGNING_ALGORITHMS } from '../keys/signing-keys.js';
import type { AccessTokenRecord, ApplicationRecord, UserRecord } from '../store.js';
import { signedByRetiredKey } from '../tokens/jwt-access-token.js';
import { findAccessToken } from '../tokens/token-lookup.js';
import { isAccessible } from '../tokens/token-state.js';
import { isDisabled } from '../users/users.js';
import { TOKEN_TYPES } from './token-exchange-grant-type.js';

// RFC 8693 section 2.1: the subject_token, the party the new token is for. Three kinds: an access token this server
// issued (found as introspection finds it: active, not revoked, its client not disabled), an ID token this server
// signed for the requesting client (OpenID Connect Core 2), or a JWT of a trusted issuer (checked as the JWT bearer
// grant checks an assertion). Every subject is a user here: a client's own token has no one to act for.

export type SubjectToken =
  | { type: 'access_token'; user: UserRecord; token: AccessTokenRecord }
  | { type: 'id_token'; user: UserRecord }
  | { type: 'jwt'; user: UserRecord; assertion: VerifiedAssertion };

export async function subjectToken(deps: OAuthDeps, value: string, type: string, client: ApplicationRecord): Promise<SubjectToken> {
  switch (type) {
    case TOKEN_TYPES.accessToken: {
      const token = await activeAccessToken(deps, value, 'subject');
      if (token.resourceOwnerId === null) throw new InvalidRequest('The subject token is not for a user.');
      return { type: 'access_token', user: usableUser(await deps.stores.users.findById(token.resourceOwnerId)), token };
    }
    case TOKEN_TYPES.idToken:
      return { type: 'id_token', user: await idTokenUser(deps, value, client) };
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

function usableUser(user: UserRecord | null): UserRecord {
  if (!user || isDisabled(user)) throw new InvalidRequest("The subject token's user is unknown or disabled.");
  return user;
}

/**
 * An ID token this server signed (a key published now), unexpired, issued to the requesting client (its aud): a
 * client exchanges what it was told about its user, nobody else's. Its sub is the user's public subject; a pairwise
 * client's sub cannot be turned back into a user, so its ID tokens are refused.
 */
async function idTokenUser(deps: OAuthDeps, value: string, client: ApplicationRecord): Promise<UserRecord> {
  if (!deps.config.openid.enabled) throw new InvalidRequest('ID tokens are not exchanged here: OpenID Connect is off.');
  const keys = createLocalJWKSet((await publishedJwks(deps)) as Parameters<typeof createLocalJWKSet>[0]);
  let sub: unknown;
  try {
    const { payload } = await jwtVerify(value, keys, {
      algorithms: [...SIGNING_ALGORITHMS],
      issuer: authorizationIssuer(deps.config.baseUrl),
      audience: client.uid,
      requiredClaims: ['exp', 'sub'],
      currentDate: deps.now(),
    });
    sub = payload.sub;
  } catch (error) {
    if (error instanceof errors.JOSEError)
      throw new InvalidRequest('The subject token is not an unexpired ID token this server issued to this client.');
    throw error;
  }
  if (client.subjectType === 'pairwise') throw new InvalidRequest("A pairwise client's ID tokens cannot be exchanged.");
  return usableUser(typeof sub === 'string' ? await deps.stores.users.findBySubject(sub) : null);
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
