import type { GuardToken, LocalGuardOptions } from '@oauth-service/guard';
import { describedSignIn } from '../../oauth/authentication-context.js';
import { findApplication } from '../../oauth/clients/applications.js';
import type { OAuthDeps } from '../../oauth/deps.js';
import { signedByRetiredKey } from '../../oauth/tokens/jwt-access-token.js';
import type { AccessTokenRecord } from '../../oauth/store.js';
import { findAccessToken } from '../../oauth/tokens/token-lookup.js';
import { inaccessibleReason } from '../../oauth/tokens/token-state.js';

export interface LocalGuardSettings {
  /**
   * Whether a refusal names why the token is unusable (revoked, expired), as protected resources do
   * (reference 12.2). Off: every unusable token is "The access token is invalid" (reference 11, token info).
   */
  reportReasons?: boolean;
}

// The record behind each token the local introspect function answered, so a route behind serviceAuthorize
// reads the row it was authorized with instead of looking the token up again.
const records = new WeakMap<GuardToken, AccessTokenRecord>();

/**
 * The guard in local mode inside the service (SPEC 6, README "Protecting your API"): tokens are read from the token store
 * through the domain, and judged with the service's clock, so the guard and the domain agree on expiry.
 */
export function localGuardOptions(deps: OAuthDeps, { reportReasons = true }: LocalGuardSettings = {}): LocalGuardOptions {
  return {
    mode: 'local',
    realm: deps.config.realm,
    // RFC 9449: bound tokens come with the DPoP scheme and a proof for this server's public URL (behind proxies too).
    dpop: {
      algorithms: deps.config.dpop.algorithms,
      proofMaxAgeSeconds: deps.config.dpop.proofMaxAgeSeconds,
      clockToleranceSeconds: deps.config.dpop.clockToleranceSeconds,
      publicUrl: deps.config.baseUrl.replace(/\/+$/, ''),
      // Token info's refusals of Bearer requests keep the reference's exact challenges (reference 11).
      announce: false,
    },
    now: () => deps.now().getTime(),
    async introspect(value) {
      const record = await findAccessToken(deps, value);
      if (!record) return null;
      const retired = signedByRetiredKey(deps, value);
      // A JWT signed by a key retired since is refused like a revoked token (issue 29 item 12).
      const reason = retired !== false && (await retired) ? 'revoked' : inaccessibleReason(record, deps.now());
      const application = reason === null && record.applicationId !== null ? await findApplication(deps, record.applicationId) : null;
      const token: GuardToken = {
        // A disabled application's tokens are refused (issue 19), through the lookup client_id makes anyway.
        active: reason === null && !application?.disabledAt,
        ...(reason !== null && reportReasons && { reason }),
        scopes: record.scopes,
        clientId: application?.uid ?? null,
        resourceOwnerId: record.resourceOwnerId,
        // Exact (fractional) seconds: the guard's own expiry check then falls at the domain's instant.
        expiresAt: record.expiresIn === null ? null : record.createdAt.getTime() / 1000 + record.expiresIn,
        // RFC 8707: checked against the guard's `resource` when one is set (empty: no audience).
        audience: record.audience,
        // RFC 9449: the key the token is bound to (cnf.jkt); the guard then wants the DPoP scheme and a proof by that key.
        dpopJkt: record.dpopJkt,
        // RFC 9470 section 6.1: the sign-in behind the token, as introspection shows it (requireAuthentication).
        ...(record.authTime !== null && {
          authTime: record.authTime.getTime() / 1000,
          acr: describedSignIn(record, deps.config.authentication.acr).acr,
        }),
      };
      records.set(token, record);
      return token;
    },
  };
}

/** The stored access token behind a token answered by localGuardOptions' introspect; null for any other. */
export function accessTokenRecordOf(token: GuardToken | null): AccessTokenRecord | null {
  return token === null ? null : (records.get(token) ?? null);
}
