import type { FastifyRequest } from 'fastify';
import type { GuardError } from './guard-error.js';
import type { DpopOptions } from './dpop-options.js';
import type { AuthenticationRequirement } from './authentication-requirement-shapes.js';
import type { InvalidTokenReason } from './token-problem.js';

/**
 * What the guard knows about an access token after looking it up: the answer of `introspect` (local mode), of
 * the authorization server's introspection endpoint (remote mode, RFC 7662), or the verified claims of a JWT
 * access token (jwt mode, RFC 9068).
 */
export interface GuardToken {
  /** True when the token may be used now (not expired, not revoked). */
  readonly active: boolean;
  /** The scopes the token was granted; case-sensitive (RFC 6749 section 3.3). */
  readonly scopes: readonly string[];
  /** The client the token was issued to; null for tokens without a client. */
  readonly clientId: string | null;
  /**
   * The resource owner the token acts for; null for client_credentials tokens (or when remote mode is not told).
   * jwt mode: the `sub` claim, null when `sub` equals `client_id` (RFC 9068 section 2.2: a client acting for itself).
   */
  readonly resourceOwnerId: string | number | null;
  /** Expiry as epoch seconds; null when the token never expires. The guard never accepts a token past it. */
  readonly expiresAt: number | null;
  /** Why an inactive token is unusable; picks the 401 description (reference 12.2: revoked, expired, unknown). */
  readonly reason?: InvalidTokenReason;
  /**
   * The resources the token is meant for (RFC 8707; introspection's or the JWT's `aud`). Absent or empty: the
   * token names no audience. Checked against the `resource` option when one is set.
   */
  readonly audience?: readonly string[];
  /** Remote mode: the whole introspection response; jwt mode: the JWT's payload. For custom claims such as `sub`. */
  readonly claims?: Readonly<Record<string, unknown>>;
  /**
   * RFC 9449: the SHA-256 JWK thumbprint (RFC 7638, base64url) of the key the token is bound to, its `cnf.jkt`
   * (introspection's `cnf`, the JWT's `cnf` claim, the token record in local mode). Absent or null: a bearer token.
   * A bound token is accepted only with the DPoP scheme and a proof signed by that key.
   */
  readonly dpopJkt?: string | null;
  /**
   * RFC 9470 section 6.1: when the user signed in, epoch seconds (introspection's or the JWT's `auth_time`); absent or
   * null when the token does not say. Checked against `requireAuthentication.maxAge`.
   */
  readonly authTime?: number | null;
  /** RFC 9470 section 6.1: the level of that sign-in (`acr`); absent or null when unknown. Checked against `requireAuthentication.acr`. */
  readonly acr?: string | null;
}

/** Looks up a token: null when the token is unknown. It may throw {@link GuardUnavailableError} (answered 503). */
export type Introspect = (token: string) => Promise<GuardToken | null>;

/** What a render-options hook may return; null or undefined keeps the default JSON body. */
export interface GuardRenderOptions {
  /** The response body: an object or array is sent as JSON, a string as is (text/plain unless contentType says otherwise). */
  body?: unknown;
  /** Content type of the body. */
  contentType?: string;
}

/** The 403 hook may also hide the resource: reference 12.2 `respond_not_found_when_forbidden` (a 404, not a 403). */
export interface GuardForbiddenRenderOptions extends GuardRenderOptions {
  respondNotFoundWhenForbidden?: boolean;
}

/** A render-options hook: receives the error (code, description, reason or scopes) and the request. */
export type RenderOptionsHook<T extends GuardRenderOptions> = (context: {
  error: GuardError;
  request: FastifyRequest;
}) => T | null | undefined | Promise<T | null | undefined>;

/** A logger for the guard's own errors: pino's loggers (and `console`) fit. */
export interface GuardLogger {
  error(details: Record<string, unknown>, message: string): void;
}

/** Options shared by every mode. */
export interface GuardCommonOptions extends ProtectedResourceOptions {
  /** Realm of the WWW-Authenticate challenges (RFC 6750 section 3). Default "oauth-service". */
  realm?: string;
  /**
   * Finds the resource owner of a valid token, for `request.currentResourceOwner()`. Called at most once per
   * request, and only with a valid token; `token.resourceOwnerId` is null for client_credentials tokens.
   */
  resolveResourceOwner?: (token: GuardToken, request: FastifyRequest) => unknown;
  /**
   * When @fastify/view is registered (it gives every reply `reply.locals`) and a resolver is configured, a
   * passing `serviceAuthorize` preHandler sets `reply.locals.currentResourceOwner`, so templates can print it.
   * That costs one resolver call on every authorized request; set false to pass it to views yourself. Default true.
   */
  exposeResourceOwnerToViews?: boolean;
  /** Customizes the 401 response body (seed: `service_unauthorized_render_options`). Default: the JSON error. */
  serviceUnauthorizedRenderOptions?: RenderOptionsHook<GuardRenderOptions>;
  /** Customizes the 403 response body (seed: `service_forbidden_render_options`). Default: the JSON error. */
  serviceForbiddenRenderOptions?: RenderOptionsHook<GuardForbiddenRenderOptions>;
  /** The clock in milliseconds (tests move it). Default `Date.now`. */
  now?: () => number;
  /**
   * Where the guard reports that the authorization server refused its own credentials (at most once a minute), when
   * the app has no Fastify logger; the app's logger is used when it has one. Default: `console.error`.
   */
  logger?: GuardLogger;
  /**
   * Accept DPoP-bound access tokens (RFC 9449): `Authorization: DPoP <token>` with a `DPoP` proof. `{}` for the
   * defaults. Without it only Bearer tokens are read, and a DPoP-bound token is refused.
   */
  dpop?: DpopOptions;
  /**
   * RFC 9470 step-up: the sign-in every `serviceAuthorize` route requires, unless the route's own
   * `config.requireAuthentication` replaces it. A token whose `acr` is not listed, or whose `auth_time` is older than
   * `maxAge` seconds (or absent), gets 401 `insufficient_user_authentication` with `acr_values` and `max_age` in the
   * challenge, which the client sends in its next authorization request.
   */
  requireAuthentication?: AuthenticationRequirement;
}

/** Local mode: inside the authorization server, tokens are read from its own store by `introspect`. */
export interface LocalGuardOptions extends GuardCommonOptions {
  mode?: 'local';
  introspect: Introspect;
}

/**
 * Remote mode: any other Node API asks the authorization server's `POST /oauth/introspect` (RFC 7662) with its
 * own client credentials, and caches the answers. A revoked token stops being accepted within
 * `cacheTtlSeconds`; a token is never accepted past its `exp`.
 */
export interface RemoteGuardOptions extends GuardCommonOptions, RemoteIntrospectionOptions {
  mode: 'remote';
}

export interface RemoteIntrospectionOptions {
  /** Absolute URL of the introspection endpoint, e.g. https://auth.example.com/oauth/introspect. */
  introspectionUrl: string;
  /** The API's own client credentials, sent with HTTP Basic. */
  clientId: string;
  clientSecret: string;
  /**
   * How long an active answer is reused, in seconds; always capped by the token's `exp`. This is also how long a
   * revoked token may still be accepted. Default 30; 0 disables caching of active answers.
   */
  cacheTtlSeconds?: number;
  /** How long an inactive answer is reused, in seconds. Default 5. */
  negativeCacheTtlSeconds?: number;
  /** Most answers kept; the oldest is evicted first. Default 10 000. */
  cacheMaxEntries?: number;
  /** Time allowed for one introspection request, in milliseconds. Default 2000. */
  timeoutMs?: number;
  /**
   * Accept an active answer without `token_type` (RFC 7662 makes it optional). Off by default: the guard accepts
   * only answers that say "Bearer" (or "DPoP" with a `cnf.jkt`, RFC 9449 section 6.2), so a server that reports refresh tokens with another or no token_type keeps
   * them from authorizing API calls (RFC 6749 section 1.5). Turn it on for a server that never sends token_type.
   */
  acceptMissingTokenType?: boolean;
  /** The clock in milliseconds. Default `Date.now`. */
  now?: () => number;
}

/**
 * The API as a protected resource (RFC 9728). With `resource` set, the guard serves the resource's metadata,
 * names it in every challenge, and refuses tokens meant for other resources.
 */
export interface ProtectedResourceOptions {
  /**
   * The API's resource identifier (RFC 8707, RFC 9728 section 1.2): an absolute https URL without fragment or
   * query (http for loopback hosts only), compared exactly with the tokens' audience. For an MCP server, its own
   * URL, e.g. https://mcp.example.com/mcp. Required in jwt mode.
   */
  resource?: string;
  /**
   * Issuer identifiers of the authorization servers that issue tokens for this API (RFC 9728 `authorization_servers`).
   * Default: jwt mode, the `issuer`; remote mode, the origin of `introspectionUrl`; local mode, none.
   */
  authorizationServers?: readonly string[];
  /** RFC 9728 `scopes_supported`: the scopes clients may ask for to call this API (the MCP SDK requests these). */
  scopesSupported?: readonly string[];
  /** RFC 9728 `resource_name`: a human-readable name of the API. */
  resourceName?: string;
  /** RFC 9728 `resource_documentation`: a URL of the API's documentation for developers. */
  resourceDocumentation?: string;
  /**
   * Whether a token that names no audience is accepted when `resource` is set. Default true in local and remote
   * mode (tokens issued without a `resource` parameter keep working, as before: any API that trusts the server
   * accepts them), false in jwt mode (RFC 9068 section 4 makes `aud` required; a JWT whose only audience is its
   * own issuer is the server's "no audience" and counts as none). False is stricter: a token obtained for no
   * particular API cannot be replayed here.
   */
  acceptTokensWithoutAudience?: boolean;
}

export type ServiceGuardOptions = LocalGuardOptions | RemoteGuardOptions | JwtGuardOptions;

/** The signature algorithms jwt mode accepts: asymmetric only (RFC 8725 section 3.1; RFC 9068 section 4). */
export type JwtAlgorithm = 'RS256' | 'ES256' | 'EdDSA';

/**
 * jwt mode: the API verifies JWT access tokens (RFC 9068) by itself, with the authorization server's public keys
 * (its `jwks_uri`, fetched and cached), without calling the server per request. A revoked JWT stays usable until
 * its `exp` unless its route is listed in `introspect`; the introspection options are then required.
 */
export interface JwtGuardOptions extends GuardCommonOptions, Partial<RemoteIntrospectionOptions> {
  mode: 'jwt';
  /**
   * The authorization server's issuer identifier (its `iss`, e.g. https://auth.example.com). Its metadata is read
   * from `<issuer>/.well-known/oauth-authorization-server` (RFC 8414 section 3) unless `jwksUri` is given.
   */
  issuer: string;
  /** The API's resource identifier; every token's `aud` must include it (RFC 9068 section 4). */
  resource: string;
  /** The JWKS URL, to skip discovery. */
  jwksUri?: string;
  /** Accepted `alg` values, a subset of RS256, ES256, EdDSA. Default all three. `none` and HS* never are. */
  algorithms?: readonly JwtAlgorithm[];
  /** Tolerance of the `exp`, `nbf` and `iat` checks, in seconds, for clocks that disagree. Default 5. */
  clockToleranceSeconds?: number;
  /**
   * A token signed with a `kid` the cached keys do not hold (a key rotated in, or one retired and dropped) refetches
   * the JWKS at most once per this many seconds; so does a failed refetch. Default 30.
   */
  jwksCooldownSeconds?: number;
  /**
   * Keys older than this are refetched before they verify again; the refetched JWKS replaces them, so a key the
   * authorization server retired verifies nothing later than this many seconds after it left the JWKS. During an
   * outage of the JWKS the cached keys keep verifying. Default 600.
   */
  jwksMaxAgeSeconds?: number;
  /**
   * Which requests also ask the introspection endpoint after the JWT verified, so that a revocation is seen at
   * once: 'never' (default), 'always', or a list of routes, each the route's URL as declared (`request.routeOptions.url`,
   * e.g. '/notes/:id') optionally preceded by its method ('DELETE /notes/:id'). `cacheTtlSeconds` defaults to 0 here.
   */
  introspect?: 'never' | 'always' | readonly string[];
}
