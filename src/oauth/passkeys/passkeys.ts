import type { OAuthDeps } from '../deps.js';
import { recordDomainEvent } from '../audit/audit-trail.js';
import { passkeyRegisteredEvent, passkeyRemovedEvent } from '../audit/passkey-events.js';
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
 * from here; the event (passkeysResetEvent) is the caller's, whose actor it names. What was removed, oldest first.
 */
export async function removeAllPasskeys(deps: Pick<OAuthDeps, 'stores'>, userId: number): Promise<PasskeyRecord[]> {
  const removed = await deps.stores.passkeys.deleteAllOfUser(userId);
  return removed.sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || a.id - b.id);
}

/** Whether a passkey is synced between devices (WebAuthn backup state: a multi-device credential) or bound to one. */
export const isSynced = (passkey: Pick<PasskeyRecord, 'deviceType' | 'backedUp'>): boolean =>
  passkey.deviceType === 'multiDevice' || passkey.backedUp;
