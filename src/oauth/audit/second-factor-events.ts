import type { NewAuditEvent } from './audit-store.js';

// The events of second factors (issue 35 item 2). Never a code, a secret or a recovery code: what happened, to whom.

const aboutUser = (userId: number) => ({ subjectType: 'user' as const, subjectId: String(userId), userId });

type SecondFactorEventType = Extract<
  NewAuditEvent['type'],
  'user.second_factor.enrolled' | 'user.second_factor.removed' | 'user.recovery_code.used' | 'user.recovery_codes.regenerated'
>;

/** Something the user did to their own second factor. */
export const ownSecondFactorEvent = (type: SecondFactorEventType, userId: number, ip: string, details?: object): NewAuditEvent => ({
  type,
  outcome: 'success',
  actor: `user:${userId}`,
  ...aboutUser(userId),
  ip,
  ...(details && { details }),
});

/**
 * A code refused at the second step (wrong, replayed, or refused for too many failures), or the proof the account
 * page asks before a change to the factor (`via: account`: the password or a code, wrong or replayed).
 */
export const secondFactorFailedEvent = (
  userId: number,
  ip: string,
  reason: 'invalid_code' | 'locked_out',
  via?: 'account',
): NewAuditEvent => ({
  type: 'user.second_factor.failed',
  outcome: 'failure',
  actor: `user:${userId}`,
  ...aboutUser(userId),
  ip,
  details: { reason, ...(via && { via }) },
});

/** An admin set the user's own second-factor policy (users.mfa). */
export const mfaPolicyEvent = (userId: number, mfa: string): Omit<NewAuditEvent, 'actor' | 'ip'> => ({
  type: 'user.updated',
  outcome: 'success',
  ...aboutUser(userId),
  details: { changed: ['mfa'], mfa },
});

/** An admin removed the user's second factor and recovery codes: they enrol again at their next sign-in if it is required. */
export const secondFactorResetEvent = (userId: number): Omit<NewAuditEvent, 'actor' | 'ip'> => ({
  type: 'user.second_factor.reset',
  outcome: 'success',
  ...aboutUser(userId),
});
