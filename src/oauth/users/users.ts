import type { AttemptOrigin, PasswordOutcome } from '../limits/attempt-limits.js';
import { revokeAuthorizations, type RevokedAuthorizations } from '../authorization/authorizations.js';
import type { OAuthDeps } from '../deps.js';
import { argon2idCostProblem, hashedPasswordForm, isArgon2idHash, passwordLength, verifyUserPassword } from './passwords.js';
import { generateSecret } from '../secrets.js';
import type { UserClaims, UserRecord } from '../store.js';
import { UsernameTaken, type EmailSource } from './user-store.js';
import { resolveProfile, UserInvalid, type ProfileErrors, type ProfileInput } from './user-profile.js';
import { hasControlCharacter } from '../control-characters.js';
import { formatCharacterIn } from '../format-characters.js';
import { endAllSignInsOfUser } from '../sessions/login-sessions.js';
import { canonicalUsername, findUserNamed } from './usernames.js';

// The local users (SPEC 3.6): signing in at /login, and what the CLI does to them.

export type LoginCheck = { outcome: 'succeeded'; user: UserRecord } | { outcome: 'failed' } | { outcome: 'locked_out'; retryAfter: number };

/**
 * /login's credential check. The attempt is reserved before the check, so logins sent at once cannot pass the
 * limit (SPEC 5 rateLimit); the limits are shared with the password grant, so neither is a way round the
 * other's lockout. The password is verified whether or not the user exists: the same work either way, so
 * timing tells no user names.
 */
export async function checkLoginCredentials(
  deps: OAuthDeps,
  username: string,
  password: string,
  origin: AttemptOrigin,
): Promise<LoginCheck> {
  const attempt = await deps.limits.users.begin('login', canonicalUsername(username), origin, deps.now);
  if (attempt.refused) return { outcome: 'locked_out', retryAfter: attempt.retryAfter };
  let outcome: PasswordOutcome = 'unchecked';
  let user: UserRecord | null = null;
  try {
    user = await findUserNamed(deps.stores.users, username);
    // A disabled user fails like a wrong password, after the same verification: the answer tells nothing.
    const verified = await verifyUserPassword(deps.passwords, user, password);
    outcome = verified && !isDisabled(user) ? 'succeeded' : 'failed';
  } finally {
    attempt.settle(outcome, deps.now());
  }
  return outcome === 'succeeded' && user ? { outcome, user } : { outcome: 'failed' };
}

export function findUser(deps: OAuthDeps, id: number): Promise<UserRecord | null> {
  return deps.stores.users.findById(id);
}

export function findUserByUsername(deps: OAuthDeps, username: string): Promise<UserRecord | null> {
  return findUserNamed(deps.stores.users, username);
}

/** Shorter passwords are refused (NIST SP 800-63B section 5.1.1.2: at least 8 characters). */
export const MIN_PASSWORD_LENGTH = 8;
/** Longer passwords are refused: /login and the password grant take no more, so a longer one could never sign in. */
export const MAX_PASSWORD_LENGTH = 1024;
/** The most users one search answers (the admin list and the CLI): refine the search to see others. */
export const SEARCH_LIMIT = 50;

/** Whether the user may not sign in (a disabled account; their tokens were revoked when it was disabled). */
export const isDisabled = (user: UserRecord | null): boolean => user?.disabledAt != null;

export function listUsers(deps: OAuthDeps): Promise<UserRecord[]> {
  return deps.stores.userAdmin.list();
}

/** Users whose username, name or email contains `text` (any case), by username; at most `limit`. */
export function searchUsers(deps: OAuthDeps, text: string, limit = SEARCH_LIMIT): Promise<UserRecord[]> {
  return deps.stores.userAdmin.search({ text: text.trim(), limit });
}

/** Usernames are matched exactly at /login: no surrounding spaces, no control characters. */
export function usernameErrors(username: string): string[] {
  if (username === '') return ["Username can't be blank"];
  const errors: string[] = [];
  if ([...username].length > 255) errors.push('Username is too long (maximum is 255 characters)');
  if (username.trim() !== username) errors.push('Username must not start or end with spaces');
  if (hasControlCharacter(username)) errors.push('Username must not contain control characters');
  // As in application names: the admin acts on a user by name and reads it in the audit trail ("dana" and "dana\u200B").
  const deceptive = formatCharacterIn(username);
  if (deceptive !== null) errors.push(`Username must not contain ${deceptive} (it changes how the name reads, or shows nothing)`);
  return errors;
}

/** What the password rules find wrong with a new password, as data: the end user's pages say it in their language. */
export type PasswordProblem =
  | { problem: 'blank' }
  | { problem: 'too_short'; minimum: number; length: number }
  | { problem: 'too_long'; maximum: number; length: number };

export function passwordProblem(password: string): PasswordProblem | null {
  if (password === '') return { problem: 'blank' };
  const length = passwordLength(password);
  if (length < MIN_PASSWORD_LENGTH) return { problem: 'too_short', minimum: MIN_PASSWORD_LENGTH, length };
  if (length > MAX_PASSWORD_LENGTH) return { problem: 'too_long', maximum: MAX_PASSWORD_LENGTH, length };
  return null;
}

/** The rules' messages in English, for the admin's pages and the CLI. */
export function passwordErrors(password: string): string[] {
  const found = passwordProblem(password);
  if (found === null) return [];
  switch (found.problem) {
    case 'blank':
      return ["Password can't be blank"];
    case 'too_short':
      return [`Password is too short (minimum is ${found.minimum} characters, it has ${found.length})`];
    case 'too_long':
      return [`Password is too long (maximum is ${found.maximum} characters, it has ${found.length})`];
  }
}

/**
 * What createUser would refuse in the username and the claims, for a caller that asks for the password only after
 * (the CLI's prompt: a password typed, then lost to a mistyped --email).
 */
export function newUserErrors(username: string, profile: ProfileInput = {}): string[] {
  return Object.values({ ...withField('username', usernameErrors(username)), ...resolveProfile(null, profile).errors }).flat();
}

/**
 * Stores the password as an argon2id hash (SPEC 4) with the user's claims. Throws UserInvalid with every problem
 * at once, then UsernameTaken when the name exists.
 */
export function createUser(deps: OAuthDeps, username: string, password: string, profile: ProfileInput = {}): Promise<UserRecord> {
  return insertUser(deps, username, profile, withField('password', passwordErrors(password)), () =>
    deps.passwords.hash(hashedPasswordForm(password)),
  );
}

/**
 * A user whose password arrives as its argon2id hash (`oauth-service apply`: the plain password is in no file), or
 * with none (null): then the hash of a random 256-bit password nobody knows, so that signing in fails after the same
 * argon2id work as a wrong password, until an admin sets one (`users set-password`).
 */
export function createUserWithPasswordHash(
  deps: OAuthDeps,
  username: string,
  passwordHash: string | null,
  profile: ProfileInput = {},
  emailVerifiedBy: string | null = null,
): Promise<UserRecord> {
  const errors = passwordHash === null ? {} : passwordHashProblems(passwordHash);
  const hash = async () => passwordHash ?? deps.passwords.hash(generateSecret());
  return insertUser(deps, username, profile, errors, hash, emailVerifiedBy);
}

async function insertUser(
  deps: OAuthDeps,
  username: string,
  profile: ProfileInput,
  passwordErrors: ProfileErrors,
  passwordHash: () => Promise<string>,
  emailVerifiedBy: string | null = null,
): Promise<UserRecord> {
  const { changes, errors } = resolveProfile(null, profile);
  throwIfAny({ ...withField('username', usernameErrors(username)), ...passwordErrors, ...errors });
  // The same name in another Unicode form is the same name (usernames.ts), which the unique index cannot see.
  if ((await findUserNamed(deps.stores.users, username)) !== null) throw new UsernameTaken(username);
  return deps.stores.userAdmin.create({
    username: canonicalUsername(username),
    passwordHash: await passwordHash(),
    ...withEmailSource(changes, emailVerifiedBy),
  });
}

/**
 * The changes with whose word the email's verification is (users.email_verified_by), written with every change of
 * email or emailVerified: null for a write here (the admin, the CLI, apply), the identityProviders id for an upstream's
 * claims. Linking by verified email counts an address only where it was verified here or by the provider linking
 * (docs/behaviour.md 3.23), so one upstream's word never links another's users.
 */
function withEmailSource(changes: Partial<UserClaims>, emailVerifiedBy: string | null): Partial<UserClaims & EmailSource> {
  return 'email' in changes || 'emailVerified' in changes ? { ...changes, emailVerifiedBy } : changes;
}

/** What is wrong with a password given as its hash, by field (none: it is an argon2id hash). */
export function passwordHashProblems(passwordHash: string): ProfileErrors {
  return withField('password_hash', passwordHashErrors(passwordHash));
}

function passwordHashErrors(passwordHash: string): string[] {
  if (!isArgon2idHash(passwordHash)) return ['Password hash must be an argon2id hash ($argon2id$v=19$m=...,t=...,p=...$salt$hash)'];
  const cost = argon2idCostProblem(passwordHash);
  return cost === null ? [] : [cost];
}

/**
 * Sets a password given as its argon2id hash (a provisioning file): an admin's reset like setPasswordByAdmin, so every
 * sign-in of the user ends too. Throws UserInvalid; false when there is no such user.
 */
export async function setUserPasswordHash(deps: OAuthDeps, user: UserRecord, passwordHash: string): Promise<boolean> {
  throwIfAny(passwordHashProblems(passwordHash));
  const changed = await deps.stores.userAdmin.setPasswordHash(user.username, passwordHash);
  if (changed) await endAllSignInsOfUser(deps, user.id);
  return changed;
}

/**
 * Changes the claims given in `profile` (the others stay); updated_at moves only when a claim really changed.
 * `emailVerifiedBy`: an upstream's claims, its identityProviders id (else written here). Throws UserInvalid; null when
 * the user no longer exists.
 */
export async function updateUserProfile(
  deps: OAuthDeps,
  user: UserRecord,
  profile: ProfileInput,
  emailVerifiedBy: string | null = null,
): Promise<UserRecord | null> {
  const { changes, errors } = resolveProfile(user, profile);
  throwIfAny(errors);
  if (Object.keys(changes).length === 0) return user;
  return deps.stores.userAdmin.updateClaims(user.id, withEmailSource(changes, emailVerifiedBy), deps.now());
}

/** False when there is no such user. */
export async function setUserPassword(
  deps: OAuthDeps,
  username: string,
  password: string,
  only?: { passwordHash: string },
): Promise<boolean> {
  return deps.stores.userAdmin.setPasswordHash(username, await deps.passwords.hash(hashedPasswordForm(password)), only);
}

/** The admin's password reset: the same rules as on create. Throws UserInvalid; false when the user is gone. */
export async function resetUserPassword(deps: OAuthDeps, user: UserRecord, password: string): Promise<boolean> {
  throwIfAny(withField('password', passwordErrors(password)));
  return setPasswordByAdmin(deps, user, password);
}

/**
 * An admin's new password for the user (Reset password, `users set-password`): every sign-in of the user ends too, as
 * on Disable, so whoever signed in with the old password (the leak a reset answers) is signed out on every instance.
 * Tokens stay: "Revoke all tokens" ends them, and tells the clients. False when the user is gone.
 */
export async function setPasswordByAdmin(deps: OAuthDeps, user: UserRecord, password: string): Promise<boolean> {
  const changed = await setUserPassword(deps, user.username, password);
  if (changed) await endAllSignInsOfUser(deps, user.id);
  return changed;
}

/**
 * Disables the user, ends their sign-ins and revokes every token and grant of theirs. Disabled first, so no new
 * sign-in succeeds while the revocation runs; disabling a disabled user keeps its date and revokes again (a retry
 * after a failed revocation ends what was left). The sessions' rows go, not only their use while disabled: a copy of
 * the cookie (the account's compromise the admin answers) must not sign in again once the user is enabled. The
 * clients those sessions signed in to are told by the revocation (its back-channel logout of the token holders).
 * Null when the user no longer exists.
 */
export async function disableUser(deps: OAuthDeps, user: UserRecord): Promise<{ user: UserRecord; revoked: RevokedAuthorizations } | null> {
  const disabled = isDisabled(user) ? user : await deps.stores.userAdmin.setDisabledAt(user.id, deps.now());
  if (!disabled) return null;
  await endAllSignInsOfUser(deps, user.id);
  return { user: disabled, revoked: await revokeAuthorizations(deps, user.id) };
}

/** Lets the user sign in again; the tokens and device approvals revoked on disabling stay revoked. Null when the user is gone. */
export function enableUser(deps: OAuthDeps, user: UserRecord): Promise<UserRecord | null> {
  return isDisabled(user) ? deps.stores.userAdmin.setDisabledAt(user.id, null) : Promise.resolve(user);
}

/** "Revoke all tokens": every live token and unused code of the user (a device approval not yet polled too), in every application. */
export function revokeUserTokens(deps: OAuthDeps, user: UserRecord): Promise<RevokedAuthorizations> {
  return revokeAuthorizations(deps, user.id);
}

/**
 * Revokes the user's tokens and grants, then deletes the user. Revoked first: resource_owner_id has no foreign
 * key, so nothing else would stop the tokens of a deleted user from working (and a later user could never
 * inherit them).
 */
export async function deleteUser(deps: OAuthDeps, user: UserRecord): Promise<RevokedAuthorizations> {
  // Disabled before the revocation, as disableUser does: a grant that checked the password meanwhile then either
  // stored its token before the revocation (revoked by it) or sees the user disabled or gone (grants/password.ts).
  if (!isDisabled(user)) await deps.stores.userAdmin.setDisabledAt(user.id, deps.now());
  const revoked = await revokeAuthorizations(deps, user.id);
  await deps.stores.userAdmin.delete(user.username);
  return revoked;
}

const withField = (field: string, messages: string[]): ProfileErrors => (messages.length > 0 ? { [field]: messages } : {});

function throwIfAny(errors: ProfileErrors): void {
  if (Object.keys(errors).length > 0) throw new UserInvalid(errors);
}
