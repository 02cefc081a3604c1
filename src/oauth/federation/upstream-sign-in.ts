import * as client from 'openid-client';
import type { IdentityProviderConfig } from '../../config/identity-providers-schema.js';
import type { OAuthDeps } from '../deps.js';
import { constantTimeEqual } from '../secrets.js';
import { checkAllowedDomain, mappedClaims, type MappedClaims } from './upstream-claims.js';
import { UpstreamFailure, upstreamFailureOf } from './upstream-failure.js';
import { forgetUpstream, upstreamConfiguration } from './upstream-providers.js';

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

/** What the browser's session keeps between the redirect to the upstream and its callback. */
export interface PendingUpstreamSignIn {
  providerId: string;
  state: string;
  nonce: string | null;
  codeVerifier: string | null;
  until: number;
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

/** The upstream's authorization URL and what to keep until its callback. */
export async function startUpstreamSignIn(
  deps: OAuthDeps,
  entry: IdentityProviderConfig,
  redirectUri: string,
  loginHint: string | null,
): Promise<{ url: string; pending: PendingUpstreamSignIn }> {
  const configuration = await withFailures(() => upstreamConfiguration(deps.config, entry));
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
  const url = client.buildAuthorizationUrl(configuration, parameters).href;
  return { url, pending: { providerId: entry.id, state, nonce, codeVerifier, until: deps.now().getTime() + PENDING_MS } };
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
      // The ID token's claims are signed, UserInfo's only come over TLS: the ID token's win where both have one.
      return { upstream: { ...userinfo, ...idTokenClaims } as Record<string, unknown>, idToken: tokens.id_token ?? null };
    },
    () => forgetUpstream(deps.config, entry.id),
  );
  const claims = mappedClaims(entry, signedIn.upstream);
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
