import * as client from 'openid-client';
import type { IdentityProviderConfig } from '../../config/identity-providers-schema.js';
import type { OAuthDeps } from '../deps.js';
import { constantTimeEqual } from '../secrets.js';
import { checkAllowedDomain, mappedClaims, mergedUpstreamClaims, type MappedClaims } from './upstream-claims.js';
import { configurationFailureOf, UpstreamFailure, upstreamFailureOf } from './upstream-failure.js';
import { forgetUpstream, upstreamConfiguration } from './upstream-providers.js';
import { UNSTORABLE_TEXT, unstorableText } from '../storable-text.js';
import { NESTED_TOO_DEEPLY, nestedTooDeeply } from '../json-nesting.js';

// src/oauth/federation (issue 37): sign-in through upstream identity providers (config identityProviders).
// upstream-providers.ts: each provider's openid-client Configuration (discovery, cache); upstream-sign-in.ts: the
// round trip; upstream-claims.ts and upstream-profile.ts: their claims as ours; upstream-user.ts: which local user;
// upstream-amr.ts: amr and acr of a federated sign-in; upstream-failure.ts: why one failed; upstream-logout.ts:
// logout with the upstream. The HTTP side is src/http/routes/federation/.
//
// The round trip to an upstream identity provider (issue 37 item 2): the authorization request with a fresh state,
// nonce and PKCE S256 verifier, kept in the browser's signed and encrypted session only (never in a URL we read back
// unchecked), and the callback: the state compared first, then openid-client's authorizationCodeGrant checks the RFC
// 9207 iss (required when the upstream advertises authorization_response_iss_parameter_supported), exchanges the code
// and verifies the ID token (signature, iss, aud, exp, nonce).

// A sign-in left at the upstream longer than this is over (the user starts again from /login).
const PENDING_MS = 10 * 60_000;
// The upstream's clock may be a little behind ours when it says when the user signed in (openid-client's default).
const AUTH_TIME_TOLERANCE_MS = 30_000;

/** What the browser's session keeps between the redirect to the upstream and its callback. */
export interface PendingUpstreamSignIn {
  providerId: string;
  state: string;
  nonce: string | null;
  codeVerifier: string | null;
  until: number;
  /**
   * Epoch ms: the authorization request's max_age (prompt=login: 0) counted back from the round trip's start; the
   * upstream's ID token must say it authenticated the user since (auth_time). null when the request set no bound.
   */
  authenticatedSince?: number | null;
}

/** A verified sign-in at the upstream. */
export interface UpstreamSignedIn {
  issuer: string;
  claims: MappedClaims;
  /** RFC 8176 values the upstream reported (amr claim), or []. */
  amr: string[];
  /** The ID token's sid, when it had one (OpenID Connect Front/Back-Channel Logout). */
  sessionId: string | null;
  idToken: string | null;
}

/** What the authorization request that sent the browser to /login asks of the sign-in. */
export interface UpstreamSignInRequest {
  loginHint: string | null;
  /** OpenID Connect max_age: how many seconds ago the user may have authenticated at most (0: prompt=login); null: any. */
  maxAge: number | null;
}

/** The upstream's authorization URL and what to keep until its callback. */
export async function startUpstreamSignIn(
  deps: OAuthDeps,
  entry: IdentityProviderConfig,
  redirectUri: string,
  { loginHint, maxAge }: UpstreamSignInRequest,
): Promise<{ url: string; pending: PendingUpstreamSignIn }> {
  const configuration = await withFailures(() => upstreamConfiguration(deps.config, entry));
  const startedAt = deps.now().getTime();
  const state = client.randomState();
  const nonce = entry.type === 'oidc' ? client.randomNonce() : null;
  const codeVerifier = entry.usePkce ? client.randomPKCECodeVerifier() : null;
  const parameters: Record<string, string> = { redirect_uri: redirectUri, scope: entry.scopes.join(' '), state };
  if (nonce !== null) parameters.nonce = nonce;
  if (codeVerifier !== null) {
    parameters.code_challenge = await client.calculatePKCECodeChallenge(codeVerifier);
    parameters.code_challenge_method = 'S256';
  }
  if (loginHint !== null) parameters.login_hint = loginHint;
  if (maxAge !== null) {
    // OpenID Connect Core 3.1.2.1: prompt=login and max_age oblige the upstream to authenticate the user actively, and
    // max_age makes auth_time REQUIRED in its ID token, which the callback checks (an upstream that ignored them and
    // answered from an older session of its own fails there). RFC 6749 section 3.1 has a plain OAuth 2.0 server ignore
    // a parameter it does not know, so prompt=login goes to type oauth2 too; with no ID token there, it is a request only.
    if (maxAge === 0) parameters.prompt = 'login';
    if (entry.type === 'oidc') parameters.max_age = String(maxAge);
  }
  const url = withConfigurationFailures(() => client.buildAuthorizationUrl(configuration, parameters).href);
  const authenticatedSince = maxAge !== null && entry.type === 'oidc' ? startedAt - maxAge * 1000 : null;
  return { url, pending: { providerId: entry.id, state, nonce, codeVerifier, until: startedAt + PENDING_MS, authenticatedSince } };
}

/** Completes the sign-in at `callbackUrl` (the full URL the upstream sent the browser to), or throws UpstreamFailure. */
export async function completeUpstreamSignIn(
  deps: OAuthDeps,
  entry: IdentityProviderConfig,
  callbackUrl: URL,
  pending: PendingUpstreamSignIn | undefined,
): Promise<UpstreamSignedIn> {
  if (!pending || pending.providerId !== entry.id || pending.until < deps.now().getTime())
    throw new UpstreamFailure('no_pending_sign_in', 'the browser started no sign-in with this provider (or too long ago)');
  const state = callbackUrl.searchParams.get('state') ?? '';
  if (!constantTimeEqual(state, pending.state)) throw new UpstreamFailure('state_mismatch', 'the state is not the one sent');
  const configuration = await withFailures(() => upstreamConfiguration(deps.config, entry));
  const signedIn = await withFailures(
    async () => {
      const tokens = await client.authorizationCodeGrant(configuration, callbackUrl, {
        expectedState: pending.state,
        ...(pending.nonce !== null && { expectedNonce: pending.nonce, idTokenExpected: true }),
        ...(pending.codeVerifier !== null && { pkceCodeVerifier: pending.codeVerifier }),
      });
      const idTokenClaims = tokens.claims();
      const userinfo = await upstreamUserInfo(configuration, entry, tokens.access_token, idTokenClaims?.sub);
      return {
        upstream: mergedUpstreamClaims(entry, userinfo as Record<string, unknown>, idTokenClaims),
        idToken: tokens.id_token ?? null,
        authTime: idTokenClaims?.auth_time,
        issuedAt: idTokenClaims?.iat,
      };
    },
    () => forgetUpstream(deps.config, entry.id),
  );
  checkReauthenticated(pending, signedIn.authTime, deps.now());
  // Core 3.1.3.7 item 10, as for the upstream's logout tokens: the clocks may differ a little, not by an hour.
  if (typeof signedIn.issuedAt === 'number' && signedIn.issuedAt * 1000 > deps.now().getTime() + AUTH_TIME_TOLERANCE_MS)
    throw new UpstreamFailure('invalid_response', 'the ID token was issued in the future (its iat)');
  // Its sub and email are looked up and stored in PostgreSQL text (storable-text.ts): refused, not a 500 or a merge.
  if (unstorableText(signedIn.upstream) !== null) throw new UpstreamFailure('invalid_response', `a claim ${UNSTORABLE_TEXT}`);
  const claims = mappedClaims(entry, signedIn.upstream);
  // The claims kept are stored as JSON text (federated subjects), which JSON.stringify would fail on thousands deep.
  if (nestedTooDeeply(claims)) throw new UpstreamFailure('invalid_response', `a claim is ${NESTED_TOO_DEEPLY}`);
  checkAllowedDomain(entry, claims);
  const { amr, sid } = signedIn.upstream;
  return {
    issuer: configuration.serverMetadata().issuer,
    claims,
    amr: Array.isArray(amr) ? amr.filter((method): method is string => typeof method === 'string') : [],
    sessionId: typeof sid === 'string' ? sid : null,
    idToken: entry.endUpstreamSession ? signedIn.idToken : null,
  };
}

/**
 * OpenID Connect Core 3.1.2.1: max_age (prompt=login: 0) was sent, so the ID token's auth_time must be within it, counted
 * from the round trip's start; older (or absent), the upstream let an older session of its own answer. Later than now
 * is no sign-in at all, whatever max_age allows.
 */
function checkReauthenticated(pending: PendingUpstreamSignIn, authTime: unknown, now: Date): void {
  if (pending.authenticatedSince === null || pending.authenticatedSince === undefined) return;
  if (typeof authTime !== 'number') throw new UpstreamFailure('invalid_response', 'the ID token has no auth_time, though max_age was sent');
  if (authTime * 1000 < pending.authenticatedSince - AUTH_TIME_TOLERANCE_MS)
    throw new UpstreamFailure('invalid_response', 'the ID token auth_time is older than max_age allows (prompt=login: now)');
  if (authTime * 1000 > now.getTime() + AUTH_TIME_TOLERANCE_MS)
    throw new UpstreamFailure('invalid_response', 'the ID token auth_time is in the future');
}

/**
 * The upstream's claims at its UserInfo endpoint ({} without one). An OpenID Provider's answer is checked as OpenID
 * Connect Core 5.3.2 says (its sub must be the ID token's); a plain OAuth 2.0 provider's user endpoint (GitHub's
 * /user) is a protected resource with no sub of its own, read as JSON.
 */
async function upstreamUserInfo(
  configuration: client.Configuration,
  entry: IdentityProviderConfig,
  accessToken: string,
  subject: string | undefined,
): Promise<Record<string, unknown>> {
  const endpoint = configuration.serverMetadata().userinfo_endpoint;
  if (!endpoint) return {};
  if (entry.type === 'oidc') return client.fetchUserInfo(configuration, accessToken, subject ?? client.skipSubjectCheck);
  const headers = new Headers({ accept: 'application/json' });
  const response = await client.fetchProtectedResource(configuration, accessToken, new URL(endpoint), 'GET', undefined, headers);
  const body: unknown = response.ok ? await response.json().catch(() => null) : null;
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw new UpstreamFailure('unreachable', `its user endpoint answered ${response.status} without a JSON object`);
  return body as Record<string, unknown>;
}

/** Builds from the provider's configuration; an error there (e.g. an http endpoint openid-client refuses) is a failure. */
function withConfigurationFailures<T>(build: () => T): T {
  try {
    return build();
  } catch (error) {
    throw configurationFailureOf(error);
  }
}

/** Runs a request to the upstream, its errors made UpstreamFailures; `onInvalid` runs when its answer failed a check. */
async function withFailures<T>(run: () => Promise<T>, onInvalid?: () => void): Promise<T> {
  try {
    return await run();
  } catch (error) {
    const failure = upstreamFailureOf(error);
    if (failure.reason === 'invalid_response') onInvalid?.();
    throw failure;
  }
}
