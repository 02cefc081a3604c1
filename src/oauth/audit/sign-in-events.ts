import type { NewAuditEvent } from './audit-store.js';

// The events of /login and /logout. A failed sign-in names the user name typed (to spot guessing against one
// account), never the password; a refused one (locked out) says so.

/** How a sign-in ended: /login's LoginCheck, or the password grant's. */
export type SignInOutcome = { outcome: 'succeeded'; user: { id: number } } | { outcome: 'failed' } | { outcome: 'locked_out' };

/** `via` names where the password was typed when it was not /login (`password_grant`, with the client's id). */
export function signInEvent(check: SignInOutcome, username: string, ip: string, via?: { via: string; client_id: string }): NewAuditEvent {
  if (check.outcome === 'succeeded') {
    const { user } = check;
    return {
      type: 'user.sign_in.succeeded',
      outcome: 'success',
      actor: `user:${user.id}`,
      ...aboutUser(user.id),
      ...(via && { clientId: via.client_id }),
      ip,
      details: { username, ...via },
    };
  }
  return {
    type: 'user.sign_in.failed',
    outcome: 'failure',
    actor: 'anonymous',
    subjectType: 'user',
    subjectId: username,
    ...(via && { clientId: via.client_id }),
    ip,
    details: { username, reason: check.outcome === 'locked_out' ? 'locked_out' : 'invalid_credentials', ...via },
  };
}

/** A sign-in the second step completed: the password, then a code of the app or a recovery code (RFC 8176 otp). */
export const secondStepSignInEvent = (
  user: { id: number; username: string },
  ip: string,
  method: 'totp' | 'recovery_code',
): NewAuditEvent => ({
  type: 'user.sign_in.succeeded',
  outcome: 'success',
  actor: `user:${user.id}`,
  ...aboutUser(user.id),
  ip,
  details: { username: user.username, method, amr: ['pwd', 'otp'] },
});

export const signOutEvent = (userId: number, ip: string): NewAuditEvent => ({
  type: 'user.signed_out',
  outcome: 'success',
  actor: `user:${userId}`,
  ...aboutUser(userId),
  ip,
});

const aboutUser = (userId: number) => ({ subjectType: 'user' as const, subjectId: String(userId), userId });

/** A user ended one of their other login sessions (the account page); `loginSessionId` is its row, never its key. */
export const sessionEndedEvent = (userId: number, ip: string, loginSessionId: number): NewAuditEvent => ({
  type: 'user.session_ended',
  outcome: 'success',
  actor: `user:${userId}`,
  ...aboutUser(userId),
  ip,
  details: { login_session: loginSessionId },
});
