import { auditedChange, type AuditActor } from '../audit/audit-trail.js';
import { userEvent } from '../audit/audit-subjects.js';
import type { OAuthDeps } from '../deps.js';
import type { AttemptOrigin } from '../limits/attempt-limits.js';
import type { UserRecord } from '../store.js';
import { checkLoginCredentials, passwordProblem, setUserPassword, type PasswordProblem } from './users.js';

// A signed-in user changing their own password (the account page, issue 35 item 5). The current password is asked
// so that a browser left signed in is not enough to take the account over; a wrong one is a failed sign-in for the
// attempt limits, so the form is no way round /login's lockout.

export interface PasswordChangeForm {
  current: string;
  password: string;
  confirmation: string;
}

/**
 * What is wrong with the form, per field, as data (the account page words it in the user's language): a blank current
 * password, the new one's problem under the password rules, a confirmation that differs.
 */
export interface PasswordChangeErrors {
  current?: { problem: 'blank' };
  password?: PasswordProblem;
  confirmation?: { problem: 'mismatch' };
}

export type PasswordChange =
  | { outcome: 'changed' }
  | { outcome: 'invalid'; errors: PasswordChangeErrors }
  | { outcome: 'wrong_password' }
  | { outcome: 'locked_out'; retryAfter: number };

/** The form's problems: a current password given, the password rules (users.ts passwordProblem), a matching confirmation. */
export function passwordChangeErrors(form: PasswordChangeForm): PasswordChangeErrors {
  const errors: PasswordChangeErrors = {};
  if (form.current === '') errors.current = { problem: 'blank' };
  const password = passwordProblem(form.password);
  if (password !== null) errors.password = password;
  else if (form.confirmation !== form.password) errors.confirmation = { problem: 'mismatch' };
  return errors;
}

/**
 * Checks the form, then the current password (through the sign-in attempt limits, from `by`'s address), then stores the
 * new one as an argon2id hash with its audit event (user.password_changed, by the user) in one transaction.
 */
export async function changeOwnPassword(
  deps: OAuthDeps,
  user: UserRecord,
  form: PasswordChangeForm,
  by: AuditActor & AttemptOrigin,
): Promise<PasswordChange> {
  const errors = passwordChangeErrors(form);
  if (Object.keys(errors).length > 0) return { outcome: 'invalid', errors };
  const check = await checkLoginCredentials(deps, user.username, form.current, by);
  if (check.outcome === 'locked_out') return check;
  if (check.outcome === 'failed' || check.user.id !== user.id) return { outcome: 'wrong_password' };
  // Only over the password just verified: of two changes at once (a double submit, two tabs), the second finds the
  // first's password and is refused as it would be after it, rather than reported done and lost.
  const verified = { passwordHash: check.user.passwordHash };
  const change = (within: OAuthDeps) => setUserPassword(within, user.username, form.password, verified);
  const event = (changed: boolean) => userEvent('user.password_changed', changed ? user : null, { via: 'account' });
  const changed = await auditedChange(deps, { actor: by.actor, ip: by.ip }, change, event);
  return changed ? { outcome: 'changed' } : { outcome: 'wrong_password' };
}
