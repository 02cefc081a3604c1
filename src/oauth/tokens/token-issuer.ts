import { randomBytes } from 'node:crypto';
import { FAPI2, isFapi2 } from '../clients/fapi2-profile.js';
import type { GrantFlow } from '../../config/types.js';
import type { OAuthDeps } from '../deps.js';
import type { TokenResponseBody } from '../hooks.js';
import { InvalidDpopProof } from '../errors.js';
import type { ActorClaim } from '../exchange/actor-claim.js';
import type { ClaimsRequest } from '../openid/claims-request.js';
import type { AuthorizationDetail } from '../resources/authorization-details.js';
import { signJwtAccessToken } from './jwt-access-token.js';
import { accessTokenFormat, audienceLifetime, NO_AUDIENCE, type Audience } from '../resources/resource-indicators.js';
import { formatScopes } from '../scopes.js';
import { generateSecret, storedForm } from '../secrets.js';
import type { AccessTokenRecord, ApplicationRecord, NewAccessToken, Stores } from '../store.js';
import { MAX_LIFETIME } from '../resources/resource-lifetime.js';

export interface TokenRequest {
  application: ApplicationRecord | null;
  resourceOwnerId: number | null;
  scopes: string[];
  grantType: GrantFlow;
  withRefreshToken: boolean;
  /** The code this token comes from (code replay revokes it). */
  accessGrantId?: number | null;
  /** Refresh: the family of the rotated token, and its stored refresh token. */
  refreshFamily?: string | null;
  previousRefreshToken?: string;
  /** Refresh keeps the rotated token's lifetime (reference 5.3); default from config. */
  expiresIn?: number | null;
  /** The sign-in the token descends from (OpenID Connect), repeated by the ID tokens of its refreshes. */
  authTime?: Date | null;
  sessionId?: string | null;
  /** How that sign-in was made (RFC 8176) and the acr it reached: JWT claims, introspection, refreshed ID tokens. */
  amr?: string[];
  acr?: string | null;
  /** RFC 8707: the resources the token is for, which also decide its format and lifetime. */
  audience?: Audience;
  /** RFC 9449: the thumbprint of the key the request's DPoP proof showed; the token is bound to it. */
  dpopJkt?: string | null;
  /** OpenID Connect Core 5.5: the claims request of the authorization, honoured by UserInfo and refreshed ID tokens. */
  claims?: ClaimsRequest | null;
  /** RFC 8693 section 4.1: who acts for the subject (token exchange with an actor_token). */
  act?: ActorClaim | null;
  /** RFC 9396 section 9: the authorization_details the token carries. */
  authorizationDetails?: AuthorizationDetail[];
  /** Token exchange: the token expires at this instant at the latest (its subject token's expiry); default no bound. */
  notAfter?: Date | null;
}

/** A token as just created: the record plus the plain values, which exist only in this response. */
export interface IssuedToken {
  record: AccessTokenRecord;
  accessToken: string;
  refreshToken: string | null;
  /** True when an existing token was returned (reuseAccessToken). */
  reused: boolean;
}

/** A token about to be stored: the row to insert and the plain values, which exist only in this response. */
export interface MintedToken {
  input: NewAccessToken;
  accessToken: string;
  refreshToken: string | null;
}

/**
 * Fresh 256-bit values, or an RFC 9068 JWT when the audience or the application asks for one; stored as SHA-256
 * hashes when hashTokens is on (SPEC 4).
 */
export async function mintAccessToken(deps: OAuthDeps, request: TokenRequest): Promise<MintedToken> {
  const { config } = deps;
  requireDpopBinding(request.application, request.dpopJkt ?? null);
  const audience = request.audience ?? NO_AUDIENCE;
  const createdAt = deps.now();
  const lifetime = audienceLifetime(audience, request.expiresIn === undefined ? config.accessTokenExpiresIn : request.expiresIn);
  // A JWT is verified with the keys of the JWKS, which only OpenID Connect publishes: while it is off, a resource or an
  // application still marked jwt (set while it was on) gets opaque tokens, which introspection answers.
  const format = config.openid.enabled ? accessTokenFormat(audience, request.application) : 'opaque';
  // RFC 9068 section 2.2: a JWT access token has an exp, even where access tokens never expire (accessTokenExpiresIn
  // null): then the longest a resource may give its tokens, and the token's record expires with it.
  const expiresIn = boundedLifetime(format === 'jwt' ? (lifetime ?? MAX_LIFETIME) : lifetime, createdAt, request.notAfter ?? null);
  const accessToken =
    format === 'jwt'
      ? await signJwtAccessToken(deps, {
          ...request,
          audience: audience.uris,
          issuedAt: createdAt,
          expiresIn,
          authTime: request.authTime ?? null,
          amr: request.amr ?? [],
          acr: request.acr ?? null,
        })
      : generateSecret();
  const refreshToken = request.withRefreshToken ? generateSecret() : null;
  const input: NewAccessToken = {
    applicationId: request.application?.id ?? null,
    resourceOwnerId: request.resourceOwnerId,
    token: storedForm(accessToken, config.hashTokens),
    refreshToken: refreshToken === null ? null : storedForm(refreshToken, config.hashTokens),
    expiresIn,
    scopes: request.scopes,
    createdAt,
    previousRefreshToken: request.previousRefreshToken ?? '',
    accessGrantId: request.accessGrantId ?? null,
    refreshFamily: refreshToken === null ? null : (request.refreshFamily ?? randomBytes(16).toString('hex')),
    authTime: request.authTime ?? null,
    sessionId: request.sessionId ?? null,
    amr: request.amr ?? [],
    acr: request.acr ?? null,
    audience: audience.uris,
    dpopJkt: request.dpopJkt ?? null,
    claims: request.claims ?? null,
    act: request.act ?? null,
    authorizationDetails: request.authorizationDetails ?? [],
  };
  return { input, accessToken, refreshToken };
}

/** Whole seconds from `createdAt`, never past `notAfter` (rounded down, so never a second after it). */
function boundedLifetime(lifetime: number | null, createdAt: Date, notAfter: Date | null): number | null {
  if (notAfter === null) return lifetime;
  const left = Math.max(0, Math.floor((notAfter.getTime() - createdAt.getTime()) / 1000));
  return lifetime === null ? left : Math.min(lifetime, left);
}

/**
 * RFC 9449 section 5.2: a client registered with dpop_bound_access_tokens gets bound tokens only; so does a fapi2
 * client (FAPI 2.0 Security Profile section 5: sender-constrained tokens only, DPoP being the one offered here).
 */
export function requireDpopBinding(application: ApplicationRecord | null, dpopJkt: string | null): void {
  if (dpopJkt) return;
  if (isFapi2(application)) {
    throw new InvalidDpopProof(`${FAPI2}: this client must send a DPoP proof: its access tokens are sender-constrained (profile fapi2).`);
  }
  if (application?.dpopBoundAccessTokens) {
    throw new InvalidDpopProof('This client must send a DPoP proof: its access tokens are DPoP-bound.');
  }
}

/** The response's view of a minted token once stored. */
export function issuedToken({ accessToken, refreshToken }: MintedToken, record: AccessTokenRecord): IssuedToken {
  return { record, accessToken, refreshToken, reused: false };
}

/** Creates an access token (and refresh token). `stores` lets a grant issue inside its transaction. */
export async function issueAccessToken(deps: OAuthDeps, request: TokenRequest, stores: Stores = deps.stores): Promise<IssuedToken> {
  const minted = await mintAccessToken(deps, request);
  return issuedToken(minted, await stores.accessTokens.create(minted.input));
}

/** Seconds left before expiry, floored at 0; null when the token never expires (reference 17.2). */
export function expiresInSeconds(token: Pick<AccessTokenRecord, 'createdAt' | 'expiresIn'>, now: Date): number | null {
  if (token.expiresIn === null) return null;
  return Math.max(0, Math.round((token.createdAt.getTime() + token.expiresIn * 1000 - now.getTime()) / 1000));
}

/**
 * RFC 6749 section 5.1 with Doorkeeper's created_at; absent values are omitted (reference 5.2). A token just
 * created reports its full lifetime, however long the insert took; a reused one reports what is left.
 */
export function tokenResponseBody(issued: IssuedToken, now: Date): TokenResponseBody {
  const expiresIn = issued.reused ? expiresInSeconds(issued.record, now) : issued.record.expiresIn;
  const scope = formatScopes(issued.record.scopes);
  return {
    access_token: issued.accessToken,
    token_type: issued.record.dpopJkt === null ? 'Bearer' : 'DPoP',
    ...(expiresIn !== null && { expires_in: expiresIn }),
    ...(issued.refreshToken !== null && { refresh_token: issued.refreshToken }),
    ...(scope !== '' && { scope }),
    // RFC 9396 section 7: the authorization_details granted, in the response as in the token.
    ...(issued.record.authorizationDetails.length > 0 && { authorization_details: issued.record.authorizationDetails }),
    created_at: Math.floor(issued.record.createdAt.getTime() / 1000),
  };
}
