import { randomBytes } from 'node:crypto';
import type { OAuthDeps } from '../../deps.js';
import { signingAlgorithmFor } from '../../clients/fapi2-profile.js';
import { authorizationIssuer } from '../../issuer.js';
import { sidFor } from '../client-sid.js';
import type { ApplicationRecord } from '../../store.js';
import type { LogoutDeliveryRecord } from './logout-delivery-store.js';

// The Logout Token of OpenID Connect Back-Channel Logout 1.0 section 2.4, made afresh for each attempt (its iat and
// exp are the attempt's, its jti its own) and signed like the client's ID tokens: the same keys, the client's
// id_token_signed_response_alg (section 2.4: "the same keys are used to sign ... as are used for ID Tokens").

export const BACKCHANNEL_LOGOUT_EVENT = 'http://schemas.openid.net/event/backchannel-logout';
/** Section 2.4 recommends a short lifetime; section 4 (replay): two minutes, as the spec's example suggests. */
export const LOGOUT_TOKEN_LIFETIME_SECONDS = 120;
/** Section 2.4 / 4.1: explicit typing keeps a logout token from passing as an ID token or an access token. */
export const LOGOUT_TOKEN_TYPE = 'logout+jwt';

export interface LogoutTokenInput {
  issuer: string;
  clientId: string;
  subject: string | null;
  sessionId: string | null;
  now: Date;
}

/**
 * Section 2.4: iss, aud, iat, exp, a unique jti, the events claim, and sub and/or sid (at least one: the delivery
 * queue never holds one without both). Never a nonce: its absence is what keeps a logout token from being accepted
 * as an ID token in a forged authentication response.
 */
export function logoutTokenClaims(input: LogoutTokenInput): Record<string, unknown> {
  const iat = Math.floor(input.now.getTime() / 1000);
  return {
    iss: input.issuer,
    ...(input.subject !== null && { sub: input.subject }),
    aud: input.clientId,
    iat,
    exp: iat + LOGOUT_TOKEN_LIFETIME_SECONDS,
    jti: randomBytes(16).toString('base64url'),
    events: { [BACKCHANNEL_LOGOUT_EVENT]: {} },
    ...(input.sessionId !== null && { sid: input.sessionId }),
  };
}

/** The signed logout token of one delivery attempt to `application`. */
export function signLogoutToken(
  deps: Pick<OAuthDeps, 'signer' | 'config' | 'now'>,
  application: ApplicationRecord,
  delivery: Pick<LogoutDeliveryRecord, 'subject' | 'sessionId'>,
): Promise<string> {
  const claims = logoutTokenClaims({
    issuer: authorizationIssuer(deps.config.baseUrl),
    clientId: application.uid,
    subject: delivery.subject,
    // The sid of this client's ID tokens for that sign-in (client-sid.ts): the queue keeps the session's own id.
    sessionId: sidFor(delivery.sessionId, application.uid),
    now: deps.now(),
  });
  // Back-Channel Logout 2.4: signed with the keys of ID tokens; here with the algorithm of this client's ID tokens too.
  const alg = signingAlgorithmFor(application, application.idTokenSignedResponseAlg, deps.config.keys);
  return deps.signer.sign(claims, { alg, typ: LOGOUT_TOKEN_TYPE });
}
