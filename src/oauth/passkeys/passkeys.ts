import type { OAuthDeps } from '../deps.js';
import type { AttemptOrigin } from '../limits/attempt-limits.js';
import { recordDomainEvent } from '../audit/audit-trail.js';
import { passkeyRegisteredEvent, passkeyRemovedEvent } from '../audit/passkey-events.js';
import { confirmOwnPassword } from '../second-factor/second-factors.js';
import type { UserRecord } from '../users/user-store.js';
import { endAllSignInsOfUser } from '../sessions/login-sessions.js';
import type { NewPasskey, PasskeyRecord } from './passkey-store.js';

// Passkeys (issue 35 item 1) as a user manages them on the account page: register (after the ceremony verified the
// attestation), list, rename, remove. Every change is the user's own: another user's passkey is "not found".

export const MAX_PASSKEY_NAME_LENGTH = 64;

/** A passkey's name as typed: trimmed; null when blank or too long. */
export function passkeyName(typed: string): string | null {
  const name = typed.trim();
  return name === '' || name.length > MAX_PASSKEY_NAME_LENGTH || /\p{Cc}/u.test(name) ? null : name;
}

export const passkeysOfUser = (deps: Pick<OAuthDeps, 'stores'>, userId: number): Promise<PasskeyRecord[]> =>
  deps.stores.passkeys.listOfUser(userId);

export const hasPasskeys = async (deps: Pick<OAuthDeps, 'stores'>, userId: number): Promise<boolean> =>
  (await passkeysOfUser(deps, userId)).length > 0;

/**
 * How recent a sign-in must be for a passkey to be added without the password: long enough to sign in and go to the
 * account page, short enough that a browser left signed in (the case the password guards against) is past it. The
 * same for every user: whether an account has a password the server cannot tell (a user made without one gets a
 * random one nobody knows, createUserWithPasswordHash), so the window cannot depend on it.
 */
export const RECENT_SIGN_IN_SECONDS = 5 * 60;

export type RegistrationProof = 'ok' | 'wrong_password' | 'sign_in_again' | { retryAfter: number };

/**
 * Before a passkey is added (it then signs in alone, with the phr acr, past `mfa: required`): the user proves it is
 * them, as before an authenticator app is set up (3.19), since a browser left signed in must not be enough to put
 * someone else's authenticator on the account. With their current password, checked and counted as a sign-in attempt
 * (confirmOwnPassword, as the app's enrolment does), or, when none is typed (a passkey-only or upstream-only user), a
 * sign-in of the last RECENT_SIGN_IN_SECONDS (`authTime`: the login session's).
 */
export async function proveRegistrationOwner(
  deps: OAuthDeps,
  user: UserRecord,
  proof: { password: string; authTime: Date | null },
  origin: AttemptOrigin,
): Promise<RegistrationProof> {
  if (proof.password !== '') {
    const password = await confirmOwnPassword(deps, user, proof.password, origin);
    return password === 'ok' ? 'ok' : password === 'wrong' ? 'wrong_password' : password;
  }
  const age = proof.authTime === null ? Infinity : deps.now().getTime() - proof.authTime.getTime();
  return age <= RECENT_SIGN_IN_SECONDS * 1000 ? 'ok' : 'sign_in_again';
}

/** Stores a verified registration; null when the credential is registered already (then nothing is written). */
export async function registerPasskey(deps: OAuthDeps, passkey: NewPasskey, ip: string): Promise<PasskeyRecord | null> {
  const created = await deps.stores.passkeys.create(passkey, deps.now());
  if (created !== null) await recordDomainEvent(deps, passkeyRegisteredEvent(created.userId, ip, created));
  return created;
}

export const renamePasskey = (deps: OAuthDeps, userId: number, id: number, name: string): Promise<boolean> =>
  deps.stores.passkeys.rename(userId, id, name);

/** Removes one of the user's passkeys; null when the id is none of theirs. */
export async function removePasskey(deps: OAuthDeps, userId: number, id: number, ip: string): Promise<PasskeyRecord | null> {
  const removed = await deps.stores.passkeys.deleteOfUser(userId, id);
  if (removed !== null) await recordDomainEvent(deps, passkeyRemovedEvent(userId, ip, removed));
  return removed;
}

/**
 * An admin's reset (Users page, CLI): removes all the user's passkeys, a lost phone or security key being unknowable
 * from here, and ends every sign-in of the user, as a password reset does: one made with the lost key would otherwise
 * go on (sessions do not record which key made them). The event (passkeysResetEvent) is the caller's, whose actor it
 * names. What was removed, oldest first.
 */
export async function removeAllPasskeys(deps: Pick<OAuthDeps, 'stores'>, userId: number): Promise<PasskeyRecord[]> {
  const removed = await deps.stores.passkeys.deleteAllOfUser(userId);
  if (removed.length > 0) await endAllSignInsOfUser(deps, userId);
  return removed.sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || a.id - b.id);
}

/** Whether a passkey is synced between devices (WebAuthn backup state: a multi-device credential) or bound to one. */
export const isSynced = (passkey: Pick<PasskeyRecord, 'deviceType' | 'backedUp'>): boolean =>
  passkey.deviceType === 'multiDevice' || passkey.backedUp;
