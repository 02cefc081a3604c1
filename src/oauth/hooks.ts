import type { AccessTokenRecord, ApplicationRecord } from './store.js';

/** The token response body of RFC 6749 section 5.1 (absent keys omitted, reference 5.2). */
export interface TokenResponseBody {
  access_token: string;
  /** "DPoP" when the token is bound to the client's key (RFC 9449 section 5). */
  token_type: 'Bearer' | 'DPoP';
  expires_in?: number;
  refresh_token?: string;
  scope?: string;
  created_at: number;
  [extra: string]: unknown;
}

export interface TokenResponseContext {
  grantType: string;
  application: ApplicationRecord | null;
  token: AccessTokenRecord;
}

export interface IntrospectionContext {
  /** The authenticated client (Basic), or null under Bearer authentication. */
  authorizedClient: ApplicationRecord | null;
  /** The bearer token of the requester, or null under client authentication. */
  authorizedToken: AccessTokenRecord | null;
}

export interface ResourceOwner {
  id: number;
  [attribute: string]: unknown;
}

/**
 * Programmatic hooks (SPEC 7). Every hook may be async. They take precedence over the declarative config
 * they overlap with (introspection.allow, introspection.response).
 */
export interface OAuthHooks {
  /** May return a changed body, or change the given one in place. */
  beforeTokenResponse?(
    response: TokenResponseBody,
    context: TokenResponseContext,
  ): TokenResponseBody | void | Promise<TokenResponseBody | void>;
  /** Seed: token is null when a Bearer requester asks about an unknown token; exactly one of the other two is set. */
  allowTokenIntrospection?(
    token: AccessTokenRecord | null,
    authorizedClient: ApplicationRecord | null,
    authorizedToken: AccessTokenRecord | null,
  ): unknown;
  /** Fields merged into an active introspection response; they can never change `active`. */
  customIntrospectionResponse?(
    token: AccessTokenRecord,
    context: IntrospectionContext,
  ): Record<string, unknown> | null | undefined | Promise<Record<string, unknown> | null | undefined>;
  /** Password grant: the user for these credentials, or null. Default: the local users table. */
  resourceOwnerFromCredentials?(username: string, password: string): ResourceOwner | null | Promise<ResourceOwner | null>;
}
