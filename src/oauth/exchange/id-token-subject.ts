import { createLocalJWKSet, errors, jwtVerify } from 'jose';
import type { OAuthDeps } from '../deps.js';
import { InvalidRequest } from '../errors.js';
import { authorizationIssuer } from '../issuer.js';
import { publishedJwks } from '../keys/signing-key-service.js';
import { SIGNING_ALGORITHMS } from '../keys/signing-keys.js';
import { notAnIdToken } from '../openid/id-token-shape.js';
import type { ApplicationRecord, UserRecord } from '../store.js';

// An ID token as a subject token (RFC 8693 section 3, urn:ietf:params:oauth:token-type:id_token): an ID token, not
// merely a JWT this server signed (id-token-shape.ts). And an ID token says that the user
// signed in, not what the user lets the client do: that is the client's live authorization, which the user can
// revoke (the authorized applications page) and which bounds what the exchange gives.

/** The user's sign-in as an ID token of this server tells it (auth_time, amr, acr): what the exchanged token carries on. */
export interface IdTokenSignIn {
  authTime: Date | null;
  amr: string[];
  acr: string | null;
}

/**
 * The sub of an ID token this server signed (a key published now), unexpired, issued to the requesting client (its
 * aud): a client exchanges what it was told about its user, nobody else's. A pairwise client's sub cannot be turned
 * back into a user, so its ID tokens are refused. With the sign-in it describes.
 */
export async function idTokenSubject(
  deps: OAuthDeps,
  value: string,
  client: ApplicationRecord,
): Promise<{ sub: string; signIn: IdTokenSignIn }> {
  if (!deps.config.openid.enabled) throw new InvalidRequest('ID tokens are not exchanged here: OpenID Connect is off.');
  const keys = createLocalJWKSet((await publishedJwks(deps)) as Parameters<typeof createLocalJWKSet>[0]);
  let verified: Awaited<ReturnType<typeof jwtVerify>>;
  try {
    verified = await jwtVerify(value, keys, {
      algorithms: [...SIGNING_ALGORITHMS],
      issuer: authorizationIssuer(deps.config.baseUrl),
      audience: client.uid,
      requiredClaims: ['exp', 'sub'],
      currentDate: deps.now(),
    });
  } catch (error) {
    if (error instanceof errors.JOSEError)
      throw new InvalidRequest('The subject token is not an unexpired ID token this server issued to this client.');
    throw error;
  }
  const { protectedHeader: header, payload } = verified;
  const problem = notAnIdToken(header, payload);
  if (problem !== null) throw new InvalidRequest(`The subject token is not an ID token (${problem}).`);
  if (client.subjectType === 'pairwise') throw new InvalidRequest("A pairwise client's ID tokens cannot be exchanged.");
  if (typeof payload.sub !== 'string') throw new InvalidRequest('The subject token has no sub.');
  const { auth_time: authTime, amr, acr } = payload;
  const signIn = {
    authTime: typeof authTime === 'number' ? new Date(authTime * 1000) : null,
    amr: Array.isArray(amr) ? amr.filter((method): method is string => typeof method === 'string') : [],
    acr: typeof acr === 'string' ? acr : null,
  };
  return { sub: payload.sub, signIn };
}

/**
 * RFC 8693 section 5 and RFC 9700 section 2.3 (privilege restriction): what the user authorizes the client to do,
 * the scopes of its live tokens, which the authorized applications page lists and its Revoke button ends. None: the
 * user revoked the client (or its tokens all expired), and its ID tokens no longer speak for the user.
 */
export async function authorizedScopes(deps: OAuthDeps, client: ApplicationRecord, user: UserRecord): Promise<string[]> {
  const scopes = await deps.stores.accessTokens.authorizedScopes({
    applicationId: client.id,
    resourceOwnerId: user.id,
    at: deps.now(),
    refreshTokenExpiresIn: deps.config.refreshTokens.expiresIn,
  });
  if (scopes === null) throw new InvalidRequest('The user no longer authorizes this client: it holds no live token of theirs.');
  return scopes;
}
