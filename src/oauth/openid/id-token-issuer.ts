import { describedSignIn } from '../authentication-context.js';
import { signingAlgorithmFor } from '../clients/fapi2-profile.js';
import { authorizationIssuer } from '../issuer.js';
import type { OAuthDeps } from '../deps.js';
import { requestedUserClaims } from './claims-request.js';
import { sidFor } from './client-sid.js';
import { idTokenClaims } from './id-token.js';
import { claimsOf } from './standard-claims.js';
import { subjectFor } from './subject.js';
import type { ApplicationRecord, NewAccessToken } from '../store.js';

// The ID token of a token response (OpenID Connect Core 3.1.3.3, 12.2): when OpenID Connect is on, `openid` was
// granted, and a user signed in. Signed with the algorithm the client registered (RS256 by default; a fapi2 client's
// is FAPI 2.0's, signingAlgorithmFor). A refresh
// repeats the original auth_time and sid and carries no nonce (Core 12.2); the sid is the client's own (client-sid.ts).

export interface IdTokenContext {
  application: ApplicationRecord | null;
  /** The access token it goes with, as stored or about to be: scopes, user, sign-in, the claims asked for by name. */
  token: Pick<NewAccessToken, 'scopes' | 'resourceOwnerId' | 'authTime' | 'sessionId' | 'amr' | 'acr' | 'claims'>;
  /** That token's value, for at_hash. */
  accessToken: string;
  nonce: string | null;
}

export async function idTokenFor(
  deps: OAuthDeps,
  { application, token: record, accessToken, nonce }: IdTokenContext,
): Promise<string | null> {
  if (!deps.config.openid.enabled || !record.scopes.includes('openid') || application === null || record.resourceOwnerId === null) {
    return null;
  }
  const user = await deps.stores.users.findById(record.resourceOwnerId);
  if (!user) return null;
  const alg = signingAlgorithmFor(application, application.idTokenSignedResponseAlg, deps.config.keys);
  // RFC 8176 and Core 2: how the user signed in and the level reached, as recorded at the sign-in.
  const signIn = describedSignIn(
    { authTime: record.authTime ?? null, amr: record.amr ?? [], acr: record.acr ?? null },
    deps.config.authentication.acr,
  );
  const claims = idTokenClaims({
    issuer: authorizationIssuer(deps.config.baseUrl),
    // Core 8: the sub this client sees (its sector's, for a pairwise client).
    subject: subjectFor(user, application, deps.config),
    clientId: application.uid,
    now: deps.now(),
    lifetimeSeconds: deps.config.openid.idTokenExpiresIn,
    alg,
    authTime: record.authTime,
    nonce,
    accessToken,
    // Back-Channel Logout 2.4: this client's own sid for the sign-in, never the session's id that every client would share.
    sessionId: sidFor(record.sessionId ?? null, application.uid),
    amr: signIn.amr,
    acr: signIn.acr,
  });
  // Core 5.5: the standard claims the id_token member of the claims parameter asked for, that the user holds (the
  // consent screen named those its scopes do not cover). One asked for as essential and missing is left out too
  // (5.5.1: never an error). auth_time, amr and acr are there once a sign-in is on record; an essential acr that cannot
  // be met ended the authorization request (openid-request.ts).
  const requested = claimsOf(user, requestedUserClaims(record.claims ?? null, 'id_token'));
  return deps.signer.sign({ ...claims, ...requested }, { alg });
}
