import { oldestLive } from '../sessions/login-session-lifetime.js';

// Which stale records `tokens cleanup` deletes (reference section 18, SPEC 2), as an ordered table of rules with
// their thresholds computed here from `now` and the settings; storage runs each rule as SQL with exactly these
// instants as parameters. The kinds are disjoint (an unrevoked row can only be "expired", a revoked one only
// "revoked") and none depends on another having run, so a dry run counts every row once, as a real run deletes it.
// Self-registered clients never used (issue 19) go last: deleting one takes its codes with it (ON DELETE CASCADE).
// Back-channel logout deliveries (issue 31) made or given up are kept keepDays for the operator, then deleted.
// Audit events (issue 32 item 7) are kept audit.retentionDays, then deleted.
// Device authorizations (RFC 8628, issue 34) go once expired for as long as a code is kept after it expired.
// Login sessions (issue 35) unused for the session lifetime go: they can no longer sign anyone in.
// Pushed authorization requests (RFC 9126, issue 36) go once expired: no authorization request can use them then.

export const CLEANUP_KINDS = [
  'expired_tokens',
  'expired_refresh_tokens',
  'revoked_tokens',
  'revoked_grants',
  'expired_grants',
  'unused_clients',
  'logout_deliveries',
  'audit_events',
  'expired_device_codes',
  'expired_login_sessions',
  'expired_pushed_requests',
] as const;
export type CleanupKind = (typeof CLEANUP_KINDS)[number];

/** A revoked token is kept at least this long, even with graceSeconds 0 (requests in flight that just read it). */
export const MIN_REVOKED_MARGIN_SECONDS = 60;

export interface CleanupSettings {
  /** refreshTokens.graceSeconds: a retried refresh must still find its rotated row. */
  graceSeconds: number;
  /** refreshTokens.expiresIn; null = refresh tokens never expire, so no token is "refresh-expired". */
  refreshTokenExpiresIn: number | null;
  /** authorizationCodeExpiresIn: how long a used or expired code is kept to recognise its replay. */
  authorizationCodeExpiresIn: number;
  /** registration.unusedClientLifetimeSeconds; left out, self-registered clients are not cleaned up. */
  unusedClientLifetimeSeconds?: number | undefined;
  /** openid.backchannelLogout.keepDays in seconds; left out, logout deliveries are not cleaned up. */
  logoutDeliveriesKeptSeconds?: number | undefined;
  /** audit.retentionDays in seconds; left out, audit events are not cleaned up. */
  auditEventsKeptSeconds?: number | undefined;
}

/** Whether a refresh family has a member usable at `at`: unrevoked then, and its access or refresh token unexpired. */
export interface UsableFamily {
  at: Date;
  /** Refresh tokens issued before this instant have expired; null: they never do. */
  refreshTokensIssuedBefore: Date | null;
}

export type CleanupRule =
  /** Reference 18: an access token without a refresh token is useless once expired; non-expiring ones stay. */
  | { kind: 'expired_tokens'; records: 'tokens'; expiredBefore: Date }
  /**
   * The reference never removes tokens carrying a refresh token (it may still be usable). With
   * refreshTokens.expiresIn set, a pair whose access token and refresh token have both expired is dead.
   */
  | { kind: 'expired_refresh_tokens'; records: 'tokens'; expiredBefore: Date; refreshTokensIssuedBefore: Date }
  /**
   * Revoked for max(graceSeconds, 60) s (a retried refresh inside the grace window must still find its rotated
   * row to get the successor) AND no member of its refresh family usable: while one is, the rotated predecessors
   * are the evidence reuse detection needs (RFC 9700 section 4.14.2: presenting one must revoke the usable
   * member), so they stay. Once the whole family is revoked or dead, a replayed token has nothing left to revoke.
   * "Usable" is exactly "not matched by the two rules above", so their order does not matter.
   */
  | { kind: 'revoked_tokens'; records: 'tokens'; revokedBefore: Date; unlessFamilyUsable: UsableFamily }
  /**
   * RFC 6749 section 4.1.2: a code used twice should revoke the tokens issued from it, which needs the grant row.
   * A used (revoked) code is kept for authorizationCodeExpiresIn after its use, which covers the rest of its
   * lifetime; after that a replay is just an unknown code (invalid_grant).
   */
  | { kind: 'revoked_grants'; records: 'codes'; revokedBefore: Date }
  /** An unused code is kept for authorizationCodeExpiresIn after it expired, for the same reason. */
  | { kind: 'expired_grants'; records: 'codes'; expiredBefore: Date }
  /**
   * Issue 19: a client that registered itself (RFC 7591, or its Client ID Metadata Document) and was never issued
   * a token (used_at NULL, and no token row either) within unusedClientLifetimeSeconds: open registration must not
   * let abandoned or hostile registrations pile up. One an admin approved is kept.
   */
  | { kind: 'unused_clients'; records: 'clients'; registeredBefore: Date }
  /** Issue 31: a logout token delivered, or given up, longer ago than keepDays; one still pending stays. */
  | { kind: 'logout_deliveries'; records: 'deliveries'; doneBefore: Date }
  /** Issue 32 item 7: an audit event older than audit.retentionDays. */
  | { kind: 'audit_events'; records: 'audit events'; occurredBefore: Date }
  /**
   * RFC 8628: a device authorization expired more than authorizationCodeExpiresIn ago, decided or not: its poll
   * answered expired_token meanwhile, and answers invalid_grant once it is gone.
   */
  | { kind: 'expired_device_codes'; records: 'device authorizations'; expiredBefore: Date }
  /** Issue 35: a login session not used for LOGIN_SESSION_LIFETIME_SECONDS; no request accepts it any more. */
  | { kind: 'expired_login_sessions'; records: 'login sessions'; unusedSince: Date }
  /** RFC 9126: a pushed authorization request past its expiry, used or not; /oauth/authorize refuses it already. */
  | { kind: 'expired_pushed_requests'; records: 'pushed authorization requests'; expiredBefore: Date };

export interface CleanupPolicy {
  now: Date;
  /** max(graceSeconds, MIN_REVOKED_MARGIN_SECONDS): how long a revoked token is kept at least. */
  revokedMarginSeconds: number;
  /**
   * The rules in the order they run (CLEANUP_KINDS); expired_refresh_tokens only when refresh tokens expire,
   * unused_clients only with unusedClientLifetimeSeconds.
   */
  rules: CleanupRule[];
  /** What the rules keep on purpose although revoked or expired, counted by a dry run. */
  kept: {
    /** Tokens revoked at or after this instant (within the margin). */
    tokensRevokedSince: Date;
    /** Revoked tokens whose family is usable so: rotated tokens reuse detection needs. */
    usableFamily: UsableFamily;
    /** Codes used, or expired unused, at or after this instant (replay detection). */
    codesDoneSince: Date;
  };
}

const secondsBefore = (now: Date, seconds: number) => new Date(now.getTime() - seconds * 1000);

export function cleanupPolicy(settings: CleanupSettings, now: Date): CleanupPolicy {
  const revokedMarginSeconds = Math.max(settings.graceSeconds, MIN_REVOKED_MARGIN_SECONDS);
  const tokensRevokedBefore = secondsBefore(now, revokedMarginSeconds);
  const codesDoneBefore = secondsBefore(now, settings.authorizationCodeExpiresIn);
  const refreshTokensIssuedBefore = settings.refreshTokenExpiresIn === null ? null : secondsBefore(now, settings.refreshTokenExpiresIn);
  const usableFamily = { at: now, refreshTokensIssuedBefore };
  const rules: CleanupRule[] = [
    { kind: 'expired_tokens', records: 'tokens', expiredBefore: now },
    ...(refreshTokensIssuedBefore === null
      ? []
      : [{ kind: 'expired_refresh_tokens', records: 'tokens', expiredBefore: now, refreshTokensIssuedBefore } as const]),
    { kind: 'revoked_tokens', records: 'tokens', revokedBefore: tokensRevokedBefore, unlessFamilyUsable: usableFamily },
    { kind: 'revoked_grants', records: 'codes', revokedBefore: codesDoneBefore },
    { kind: 'expired_grants', records: 'codes', expiredBefore: codesDoneBefore },
    ...(settings.unusedClientLifetimeSeconds === undefined
      ? []
      : [
          {
            kind: 'unused_clients',
            records: 'clients',
            registeredBefore: secondsBefore(now, settings.unusedClientLifetimeSeconds),
          } as const,
        ]),
    ...(settings.logoutDeliveriesKeptSeconds === undefined
      ? []
      : [
          {
            kind: 'logout_deliveries',
            records: 'deliveries',
            doneBefore: secondsBefore(now, settings.logoutDeliveriesKeptSeconds),
          } as const,
        ]),
    ...(settings.auditEventsKeptSeconds === undefined
      ? []
      : [{ kind: 'audit_events', records: 'audit events', occurredBefore: secondsBefore(now, settings.auditEventsKeptSeconds) } as const]),
    { kind: 'expired_device_codes', records: 'device authorizations', expiredBefore: codesDoneBefore },
    { kind: 'expired_login_sessions', records: 'login sessions', unusedSince: oldestLive(now) },
    { kind: 'expired_pushed_requests', records: 'pushed authorization requests', expiredBefore: now },
  ];
  return {
    now,
    revokedMarginSeconds,
    rules,
    kept: { tokensRevokedSince: tokensRevokedBefore, usableFamily, codesDoneSince: codesDoneBefore },
  };
}
