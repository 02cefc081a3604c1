import { audienceOf } from './audience.js';
import { GuardMisconfiguredError, GuardUnavailableError } from './guard-error.js';
import { cacheKey, IntrospectionCache } from './introspection-cache.js';
import { remoteSettings } from './remote-settings.js';
import type { GuardToken, Introspect, RemoteIntrospectionOptions } from './types.js';

// A refused API would otherwise send its refused credentials again with every request: at the service's default
// rateLimit (10 failures a minute) that locks the API's client out within seconds, and the lockout's 429 would read
// as an outage (503) instead of the misconfiguration. Once every 10 s stays under it and still notices a fix soon.
const REFUSAL_RETRY_MS = 10_000;

/**
 * An `introspect` function that asks the authorization server (RFC 7662 section 2.1) and caches its answers by
 * token hash. Concurrent lookups of one token share a single request. Global fetch keeps connections alive, so
 * a busy API reuses a few sockets. Throws {@link GuardMisconfiguredError} when the server refuses the API's own
 * credentials or request, and {@link GuardUnavailableError} when it is unreachable, slow or answers anything else but
 * a 200 introspection response: a token that cannot be checked is never accepted. After a refusal, uncached tokens
 * get the same error without a request for 10 s.
 */
export function createRemoteIntrospector(options: RemoteIntrospectionOptions): Introspect {
  const settings = remoteSettings(options);
  const cache = new IntrospectionCache({
    ttlSeconds: settings.cacheTtlSeconds,
    negativeTtlSeconds: settings.negativeCacheTtlSeconds,
    maxEntries: settings.cacheMaxEntries,
    now: settings.now,
  });
  const inFlight = new Map<string, Promise<GuardToken | null>>();
  let refusal: { error: GuardMisconfiguredError; until: number } | null = null;

  async function ask(token: string): Promise<GuardToken | null> {
    if (refusal && settings.now() < refusal.until) throw refusal.error;
    const response = await post(token);
    const text = await response.text().catch(() => '');
    // A body the server takes no body this large of (a token of ~5,500 "/" or "+" is three times that, form-encoded):
    // no token it issued is that long, so the token is inactive, not the server unavailable (an anonymous 503).
    if (response.status === 413) return null;
    if (response.status !== 200) {
      const error = failure(settings.url, response.status, oauthErrorCode(text));
      if (error instanceof GuardMisconfiguredError) refusal = { error, until: settings.now() + REFUSAL_RETRY_MS };
      throw error;
    }
    const body = parseObject(text);
    if (!body || typeof body.active !== 'boolean')
      throw new GuardUnavailableError(`${settings.url} answered 200 without an introspection response`);
    return toGuardToken(body, settings.acceptMissingTokenType);
  }

  async function post(token: string): Promise<Response> {
    try {
      return await fetch(settings.url, {
        method: 'POST',
        headers: { authorization: settings.authorization, 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
        body: new URLSearchParams({ token, token_type_hint: 'access_token' }).toString(),
        signal: AbortSignal.timeout(settings.timeoutMs),
        // Credentials go to the configured URL only; a redirect is a misconfiguration (answered 3xx -> 503).
        redirect: 'manual',
      });
    } catch (error) {
      const timedOut = error instanceof Error && error.name === 'TimeoutError';
      const detail = timedOut ? `timed out after ${settings.timeoutMs} ms` : `failed: ${describe(error)}`;
      throw new GuardUnavailableError(`introspection request to ${settings.url} ${detail}`, { cause: error });
    }
  }

  return async function introspectRemotely(token: string): Promise<GuardToken | null> {
    const key = cacheKey(token);
    const cached = cache.get(key);
    if (cached) return cached.value;
    const pending = inFlight.get(key);
    if (pending) return pending;
    const request = ask(token).then((value) => {
      cache.set(key, value);
      return value;
    });
    inFlight.set(key, request);
    try {
      return await request;
    } finally {
      inFlight.delete(key);
    }
  };
}

/**
 * RFC 7662 section 2.2 to a GuardToken. Only an access token counts: an active answer must say token_type
 * "Bearer" (case-insensitive; RFC 6750 section 6.1.1), so a refresh token reported with another or no token_type
 * never authorizes an API call (RFC 6749 section 1.5); or "DPoP" with the key's thumbprint in `cnf.jkt`
 * (RFC 9449 section 6.2). A `cnf.jkt` makes the token bound, whatever its token_type says.
 */
export function toGuardToken(body: Record<string, unknown>, acceptMissingTokenType = false): GuardToken | null {
  if (body.active !== true) return null;
  const tokenType = typeof body.token_type === 'string' ? body.token_type.toLowerCase() : body.token_type;
  const jkt = confirmationThumbprint(body.cnf);
  const accepted = tokenType === 'bearer' || (tokenType === 'dpop' && jkt !== null) || (tokenType === undefined && acceptMissingTokenType);
  if (!accepted) return null;
  const scopes = typeof body.scope === 'string' ? body.scope.split(' ').filter((scope) => scope !== '') : [];
  const sub = body.sub;
  return Object.freeze({
    active: true,
    scopes: Object.freeze(scopes),
    clientId: typeof body.client_id === 'string' ? body.client_id : null,
    // RFC 7662 section 2.2: sub is "usually a machine-readable identifier of the resource owner".
    resourceOwnerId: typeof sub === 'string' || typeof sub === 'number' ? sub : null,
    expiresAt: typeof body.exp === 'number' && Number.isFinite(body.exp) ? body.exp : null,
    // RFC 7662 section 2.2: aud is one string or an array; absent when the token has no audience.
    ...(body.aud !== undefined && { audience: audienceOf(body.aud) }),
    claims: Object.freeze({ ...body }),
    ...(jkt !== null && { dpopJkt: jkt }),
    // RFC 9470 section 6.1: the sign-in behind the token, for requireAuthentication.
    ...signInOf(body),
  });
}

/** RFC 9470 section 6.1 (and RFC 9068 section 2.2.1 for a JWT): `auth_time` and `acr`, where they are a number and a string. */
export function signInOf(claims: Record<string, unknown>): { authTime?: number; acr?: string } {
  const { auth_time: authTime, acr } = claims;
  return {
    ...(typeof authTime === 'number' && Number.isFinite(authTime) && { authTime }),
    ...(typeof acr === 'string' && { acr }),
  };
}

/** RFC 7800 / RFC 9449 section 6: the `jkt` member of a `cnf` claim, or null. */
export function confirmationThumbprint(cnf: unknown): string | null {
  const jkt = cnf !== null && typeof cnf === 'object' ? (cnf as { jkt?: unknown }).jkt : undefined;
  return typeof jkt === 'string' && jkt !== '' ? jkt : null;
}

function parseObject(text: string): Record<string, unknown> | null {
  try {
    const value: unknown = JSON.parse(text);
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

// An OAuth error code helps the operator (invalid_client: wrong clientId or clientSecret; or the client is
// not allowed to introspect). Only the code: the body of a misbehaving server is not copied into logs.
function oauthErrorCode(text: string): string | null {
  const error = parseObject(text)?.error;
  return typeof error === 'string' && /^[\x20-\x7E]{1,64}$/.test(error) ? error : null;
}

// The codes by which a server refuses the client itself (RFC 6749 section 5.2), whatever status carries them.
const REFUSING_THE_CLIENT = new Set(['invalid_client', 'unauthorized_client']);

/**
 * A non-200 answer: the server refusing the guard's own request (401 and 403 are about the credentials, RFC 7662
 * section 2.1; a 400 with an OAuth error names the request as wrong) is a misconfiguration that retrying cannot fix;
 * anything else (5xx, 429, a redirect, a proxy's error page) is the server being unavailable.
 */
function failure(url: string, status: number, code: string | null): Error {
  const refused = status === 401 || status === 403 || (status === 400 && code !== null) || (code !== null && REFUSING_THE_CLIENT.has(code));
  const detail = `${url} answered ${status}${code === null ? '' : ` (${code})`}`;
  return refused ? new GuardMisconfiguredError(detail, { url, status, serviceError: code }) : new GuardUnavailableError(detail);
}

function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause instanceof Error ? `: ${(error.cause as NodeJS.ErrnoException).code ?? error.cause.message}` : '';
  return `${error.message}${cause}`;
}
