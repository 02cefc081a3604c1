import type { PasswordOutcome } from './attempt-limits.js';
import { revokeAuthorizations, type RevokedAuthorizations } from './authorizations.js';
import type { OAuthDeps } from './deps.js';
import { verifyUserPassword } from './passwords.js';
import type { UserRecord } from './store.js';

// The local users (SPEC 3.6): signing in at /login, and what the CLI does to them.

export type LoginCheck = { outcome: 'succeeded'; user: UserRecord } | { outcome: 'failed' } | { outcome: 'locked_out'; retryAfter: number };

/**
 * /login's credential check. The attempt is reserved before the check, so logins sent at once cannot pass the
 * limit (SPEC 5 rateLimit); the limits are shared with the password grant, so neither is a way round the
 * other's lockout. The password is verified whether or not the user exists: the same work either way, so
 * timing tells no user names.
 */
export async function checkLoginCredentials(deps: OAuthDeps, username: string, password: string, address: string): Promise<LoginCheck> {
  const attempt = await deps.limits.users.begin('login', username, address, deps.now);
  if (attempt.refused) return { outcome: 'locked_out', retryAfter: attempt.retryAfter };
  let outcome: PasswordOutcome = 'unchecked';
  let user: UserRecord | null = null;
  try {
    user = await deps.stores.users.findByUsername(username);
    outcome = (await verifyUserPassword(deps.passwords, user, password)) ? 'succeeded' : 'failed';
  } finally {
    attempt.settle(outcome, deps.now());
  }
  return outcome === 'succeeded' && user ? { outcome, user } : { outcome: 'failed' };
}

export function findUser(deps: OAuthDeps, id: number): Promise<UserRecord | null> {
  return deps.stores.users.findById(id);
}

export function findUserByUsername(deps: OAuthDeps, username: string): Promise<UserRecord | null> {
  return deps.stores.users.findByUsername(username);
}

export function listUsers(deps: OAuthDeps): Promise<UserRecord[]> {
  return deps.stores.userAdmin.list();
}

/** Stores the password as an argon2id hash (SPEC 4). Throws UsernameTaken when the name exists. */
export async function createUser(deps: OAuthDeps, username: string, password: string): Promise<UserRecord> {
  return deps.stores.userAdmin.create({ username, passwordHash: await deps.passwords.hash(password) });
}

/** False when there is no such user. */
export async function setUserPassword(deps: OAuthDeps, username: string, password: string): Promise<boolean> {
  return deps.stores.userAdmin.setPasswordHash(username, await deps.passwords.hash(password));
}

/**
 * Revokes the user's tokens and grants, then deletes the user. Revoked first: resource_owner_id has no foreign
 * key, so nothing else would stop the tokens of a deleted user from working (and a later user could never
 * inherit them).
 */
export async function deleteUser(deps: OAuthDeps, user: UserRecord): Promise<RevokedAuthorizations> {
  const revoked = await revokeAuthorizations(deps, user.id);
  await deps.stores.userAdmin.delete(user.username);
  return revoked;
}
