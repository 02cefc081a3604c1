import type { LoginCheck } from '../users/users.js';
import type { NewAuditEvent } from './audit-store.js';

// The events of /login and /logout. A failed sign-in names the user name typed (to spot guessing against one
// account), never the password; a refused one (locked out) says so.

export function signInEvent(check: LoginCheck, username: string, ip: string): NewAuditEvent {
  if (check.outcome === 'succeeded') {
    const { user } = check;
    return {
      type: 'user.sign_in.succeeded',
      outcome: 'success',
      actor: `user:${user.id}`,
      ...aboutUser(user.id),
      ip,
      details: { username },
    };
  }
  return {
    type: 'user.sign_in.failed',
    outcome: 'failure',
    actor: 'anonymous',
    subjectType: 'user',
    subjectId: username,
    ip,
    details: { username, reason: check.outcome === 'locked_out' ? 'locked_out' : 'invalid_credentials' },
  };
}

export const signOutEvent = (userId: number, ip: string): NewAuditEvent => ({
  type: 'user.signed_out',
  outcome: 'success',
  actor: `user:${userId}`,
  ...aboutUser(userId),
  ip,
});

const aboutUser = (userId: number) => ({ subjectType: 'user' as const, subjectId: String(userId), userId });
