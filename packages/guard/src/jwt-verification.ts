import { errors, jwtVerify, type JWTPayload } from 'jose';
import { audienceOf } from './audience.js';
import { lazyJwksUri } from './authorization-server-discovery.js';
import { GuardUnavailableError } from './guard-error.js';
import { JwksCache } from './jwks-cache.js';
import { confirmationThumbprint, signInOf } from './remote-introspection.js';
import type { JwtSettings } from './jwt-settings.js';
import type { GuardToken, Introspect } from './types.js';

// RFC 9068 section 2.2: iss, exp, aud, sub, client_id, iat and jti are required. iss is compared by jwtVerify and
// aud by the guard's audience rule (a missing aud is "no audience"), so they are not listed here.
const REQUIRED_CLAIMS = ['exp', 'iat', 'jti', 'sub', 'client_id'];
const COMPACT_JWS = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;

/**
 * Verifies JWT access tokens (RFC 9068 section 4) without calling the authorization server: the signature with
 * the issuer's published keys and an allowed asymmetric alg, `typ` at+jwt (application/at+jwt too: jose compares
 * media types without the application/ prefix, case-insensitively), iss, exp, nbf and iat within the clock
 * tolerance. Answers null for anything that is not such a token (an opaque token, a forged or altered one),
 * an inactive token with reason 'expired' for an expired one, and throws {@link GuardUnavailableError} when the
 * keys cannot be fetched.
 */
export function createJwtVerifier(settings: JwtSettings, onKeysRefreshError: (error: unknown) => void): Introspect {
  const keys = new JwksCache({
    url: lazyJwksUri(settings.issuer, settings.jwksUri, settings.timeoutMs),
    cooldownSeconds: settings.jwksCooldownSeconds,
    maxAgeSeconds: settings.jwksMaxAgeSeconds,
    timeoutMs: settings.timeoutMs,
    now: settings.now,
    onRefreshError: onKeysRefreshError,
  });

  return async function verifyJwtAccessToken(token: string): Promise<GuardToken | null> {
    if (!COMPACT_JWS.test(token)) return null;
    try {
      const { payload } = await jwtVerify(token, keys.getKey, {
        issuer: settings.issuer,
        algorithms: settings.algorithms,
        typ: 'at+jwt',
        clockTolerance: settings.clockToleranceSeconds,
        currentDate: new Date(settings.now()),
        requiredClaims: REQUIRED_CLAIMS,
      });
      // jose looks at iat only against a maximum age: a token issued in the future (beyond the tolerance) is refused.
      if ((payload.iat as number) > settings.now() / 1000 + settings.clockToleranceSeconds) return null;
      return jwtGuardToken(payload);
    } catch (error) {
      if (error instanceof GuardUnavailableError) throw error;
      if (error instanceof errors.JWTExpired) return EXPIRED;
      if (error instanceof errors.JOSEError) return null;
      throw error;
    }
  };
}

const EXPIRED: GuardToken = Object.freeze({
  active: false,
  reason: 'expired',
  scopes: Object.freeze([]),
  clientId: null,
  resourceOwnerId: null,
  expiresAt: null,
});

/**
 * The verified claims as a GuardToken. RFC 9068 section 2.2: `sub` is the resource owner, or the client itself
 * when no resource owner is involved (client_credentials), in which case this service sets it to the client_id;
 * so sub equal to client_id means "no resource owner" (null).
 */
export function jwtGuardToken(payload: JWTPayload): GuardToken {
  const clientId = typeof payload.client_id === 'string' ? payload.client_id : null;
  const sub = typeof payload.sub === 'string' ? payload.sub : null;
  // RFC 9068 section 2.2.3: scope is a space-separated list, as in RFC 8693 section 4.2.
  const scopes = typeof payload.scope === 'string' ? payload.scope.split(' ').filter((scope) => scope !== '') : [];
  return Object.freeze({
    active: true,
    scopes: Object.freeze(scopes),
    clientId,
    resourceOwnerId: sub !== null && sub !== clientId ? sub : null,
    expiresAt: typeof payload.exp === 'number' ? payload.exp : null,
    audience: audienceOf(payload.aud),
    claims: Object.freeze({ ...payload }),
    // RFC 9449 section 6.1: a bound JWT carries the key's thumbprint in cnf.jkt.
    ...(confirmationThumbprint(payload.cnf) !== null && { dpopJkt: confirmationThumbprint(payload.cnf) }),
    ...signInOf(payload),
  });
}
