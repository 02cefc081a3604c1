import type { FastifyRequest } from 'fastify';
import type { GuardError } from './guard-error.js';
import type { InvalidTokenReason } from './token-problem.js';

/**
 * What the guard knows about an access token after looking it up: the answer of `introspect` (local mode) or
 * of the authorization server's introspection endpoint (remote mode, RFC 7662).
 */
export interface GuardToken {
  /** True when the token may be used now (not expired, not revoked). */
  readonly active: boolean;
  /** The scopes the token was granted; case-sensitive (RFC 6749 section 3.3). */
  readonly scopes: readonly string[];
  /** The client the token was issued to; null for tokens without a client. */
  readonly clientId: string | null;
  /** The resource owner the token acts for; null for client_credentials tokens (or when remote mode is not told). */
  readonly resourceOwnerId: string | number | null;
  /** Expiry as epoch seconds; null when the token never expires. The guard never accepts a token past it. */
  readonly expiresAt: number | null;
  /** Why an inactive token is unusable; picks the 401 description (reference 12.2: revoked, expired, unknown). */
  readonly reason?: InvalidTokenReason;
  /** Remote mode: the whole introspection response, for custom claims such as `sub` or `username`. */
  readonly claims?: Readonly<Record<string, unknown>>;
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

/** Options shared by both modes. */
export interface GuardCommonOptions {
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
   * only answers that say "Bearer", so a server that reports refresh tokens with another or no token_type keeps
   * them from authorizing API calls (RFC 6749 section 1.5). Turn it on for a server that never sends token_type.
   */
  acceptMissingTokenType?: boolean;
  /** The clock in milliseconds. Default `Date.now`. */
  now?: () => number;
}

export type ServiceGuardOptions = LocalGuardOptions | RemoteGuardOptions;
