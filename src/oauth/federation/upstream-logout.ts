import * as client from 'openid-client';
import { createRemoteJWKSet, jwtVerify, type JWTPayload } from 'jose';
import type { IdentityProviderConfig } from '../../config/identity-providers-schema.js';
import type { OAuthDeps } from '../deps.js';
import { replayKey } from '../replay-key.js';
import { UNSTORABLE_TEXT, unstorableText } from '../storable-text.js';
import type { LoginSessionRecord } from '../sessions/login-session-store.js';
import { findUpstream, upstreamConfiguration } from './upstream-providers.js';

// Logout with an upstream identity provider (issue 37 item 4). Ours ending theirs: with endUpstreamSession, our logout
// sends the browser on to the upstream's end_session_endpoint (OpenID Connect RP-Initiated Logout 1.0) with the ID
// token it signed the user in with. Theirs ending ours: the upstream's back-channel logout token (OpenID Connect
// Back-Channel Logout 1.0) ends the login sessions it names.

const BACKCHANNEL_LOGOUT_EVENT = 'http://schemas.openid.net/event/backchannel-logout';
// Asymmetric algorithms only: a logout token MAC'd with the client secret would be forgeable by anyone holding it.
const ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA'];
// A captured logout token sent again would end the sessions its user started since (those of its sub): each jti is
// used once while the token is valid, on any instance (the replay table of DPoP proofs and client assertions, in a
// namespace of its own). exp became required with the specification's errata 1: a token without one is taken as
// valid for this long after its iat, and refused after that.
const REPLAY_NAMESPACE = 'upstream-logout-token';
const VALID_WITHOUT_EXP_SECONDS = 600;
// The longest a logout token may be valid (its exp after now): its jti is kept that long. Providers make them valid for
// minutes; one for years would keep its record for years, and beyond JavaScript's dates it could not be kept at all.
const MAX_VALID_SECONDS = 86_400;
// An iat later than now by more than this is refused (Core 3.1.3.7 item 10, which section 2.6 step 3 applies): the
// two clocks may differ a little, not by the token's whole life.
const CLOCK_TOLERANCE_SECONDS = 60;

/** Where our logout sends the browser next: the upstream's end_session_endpoint, or null (not asked, or none). */
export async function upstreamEndSessionUrl(
  deps: OAuthDeps,
  session: LoginSessionRecord,
  postLogoutRedirectUri: string,
): Promise<string | null> {
  if (session.upstreamProviderId === null || session.upstreamIdToken === null) return null;
  const entry = findUpstream(deps.config, session.upstreamProviderId);
  if (entry === null || !entry.endUpstreamSession || entry.type !== 'oidc') return null;
  const configuration = await upstreamConfiguration(deps.config, entry);
  if (!configuration.serverMetadata().end_session_endpoint) return null;
  return client.buildEndSessionUrl(configuration, {
    id_token_hint: session.upstreamIdToken,
    post_logout_redirect_uri: postLogoutRedirectUri,
    client_id: entry.clientId,
  }).href;
}

/** Why a logout token is refused; the message is the 400's error_description. */
export class InvalidLogoutToken extends Error {}

const keySets = new WeakMap<object, ReturnType<typeof createRemoteJWKSet>>();

/** What a valid logout token names, and its jti's replay record (written once the sessions have ended). */
export interface VerifiedLogoutToken {
  sessionId: string | null;
  subject: string | null;
  replay: { key: string; until: Date };
}

/** A valid logout token not used before (Back-Channel Logout 1.0 section 2.6), or throws InvalidLogoutToken. */
export async function verifyUpstreamLogoutToken(
  deps: OAuthDeps,
  entry: IdentityProviderConfig,
  token: string,
): Promise<VerifiedLogoutToken> {
  const configuration = await upstreamConfiguration(deps.config, entry);
  const { issuer, jwks_uri: jwksUri } = configuration.serverMetadata();
  if (!jwksUri) throw new InvalidLogoutToken('the identity provider publishes no keys (jwks_uri)');
  let keys = keySets.get(configuration);
  if (!keys) keySets.set(configuration, (keys = createRemoteJWKSet(new URL(jwksUri), { timeoutDuration: entry.timeoutSeconds * 1000 })));
  let payload: JWTPayload;
  try {
    // Step 3: the signature, iss, aud and iat (and exp when present) as for an ID token.
    ({ payload } = await jwtVerify(token, keys, {
      issuer,
      audience: entry.clientId,
      algorithms: ALGORITHMS,
      requiredClaims: ['iat', 'jti'],
      currentDate: deps.now(),
    }));
  } catch (error) {
    throw new InvalidLogoutToken(`the logout token is not valid: ${(error as Error).message}`);
  }
  // jose requires a jti but not its type: as text, every object would be one jti ("[object Object]"), a replay.
  if (typeof payload.jti !== 'string' || payload.jti === '') throw new InvalidLogoutToken("the logout token's jti is not a string");
  // Its sid and sub are looked up in PostgreSQL text (storable-text.ts): refused rather than a 500.
  if (unstorableText(payload) !== null) throw new InvalidLogoutToken(`the logout token's claims ${UNSTORABLE_TEXT}`);
  if (payload.iat! > deps.now().getTime() / 1000 + CLOCK_TOLERANCE_SECONDS)
    throw new InvalidLogoutToken('the logout token was issued in the future (its iat)');
  if (payload.exp !== undefined && payload.exp - deps.now().getTime() / 1000 > MAX_VALID_SECONDS)
    throw new InvalidLogoutToken(`a logout token may be valid for at most ${MAX_VALID_SECONDS} seconds (its exp)`);
  const events = payload.events as Record<string, unknown> | undefined;
  const event = events?.[BACKCHANNEL_LOGOUT_EVENT];
  // Step 5: the events claim with the back-channel logout member, a JSON object.
  if (typeof event !== 'object' || event === null || Array.isArray(event))
    throw new InvalidLogoutToken(`the logout token has no ${BACKCHANNEL_LOGOUT_EVENT} event`);
  // Step 4: a sub, a sid or both.
  const sessionId = typeof payload.sid === 'string' ? payload.sid : null;
  const subject = typeof payload.sub === 'string' ? payload.sub : null;
  if (sessionId === null && subject === null) throw new InvalidLogoutToken('the logout token names neither sub nor sid');
  // Step 6: never a nonce (it would be an ID token made to look like a logout token).
  if ('nonce' in payload) throw new InvalidLogoutToken('a logout token must not contain a nonce');
  // jwtVerify has refused an expired exp already; without one, the token's time is counted from its iat.
  const until = new Date((payload.exp ?? payload.iat! + VALID_WITHOUT_EXP_SECONDS) * 1000);
  if (payload.exp === undefined && until <= deps.now())
    throw new InvalidLogoutToken(`a logout token without exp is accepted for ${VALID_WITHOUT_EXP_SECONDS} seconds after its iat`);
  // Recorded only once the sessions have ended (endUpstreamLoginSessions): a delivery that failed here may come again.
  const key = replayKey(REPLAY_NAMESPACE, issuer, payload.jti);
  if (await deps.stores.dpopProofs.seen(key)) throw new InvalidLogoutToken('the logout token was used already (its jti)');
  return { sessionId, subject, replay: { key, until } };
}

/** Ends our login sessions that the upstream's logout names, then records its jti; what ended. */
export async function endUpstreamLoginSessions(
  deps: OAuthDeps,
  entry: IdentityProviderConfig,
  { sessionId, subject, replay }: VerifiedLogoutToken,
): Promise<LoginSessionRecord[]> {
  // Entries of the same upstream client (one issuer, one client id) share its one back-channel logout URI, which names
  // only one of them: the token speaks for the sessions begun through each.
  const sameClient = deps.config.identityProviders
    .filter((other) => other.issuer === entry.issuer && other.clientId === entry.clientId)
    .map((other) => other.id);
  const ended = await deps.stores.loginSessions.deleteOfUpstream([entry.id, ...sameClient], { sessionId, subject });
  // Two deliveries of one token at once both end the same sessions; the one recorded second changes nothing.
  await deps.stores.dpopProofs.remember(replay.key, replay.until);
  return ended;
}
