import type { NewAuditEvent } from './audit-store.js';

// The events of passkeys (issue 35 item 1). A passkey is named by its row id and the name its user gave it; the
// credential id and public key are not secrets but say nothing to a reader, so only a refusal carries the id (to
// find the authenticator that sent it).

const aboutUser = (userId: number) => ({ subjectType: 'user' as const, subjectId: String(userId), userId });

export const passkeyRegisteredEvent = (userId: number, ip: string, passkey: { id: number; name: string }): NewAuditEvent => ({
  type: 'user.passkey.registered',
  outcome: 'success',
  actor: `user:${userId}`,
  ...aboutUser(userId),
  ip,
  details: { passkey: passkey.id, name: passkey.name },
});

export const passkeyRemovedEvent = (userId: number, ip: string, passkey: { id: number; name: string }): NewAuditEvent => ({
  type: 'user.passkey.removed',
  outcome: 'success',
  actor: `user:${userId}`,
  ...aboutUser(userId),
  ip,
  details: { passkey: passkey.id, name: passkey.name },
});

export const passkeySignInEvent = (userId: number, ip: string, passkey: { id: number }, amr: readonly string[]): NewAuditEvent => ({
  type: 'user.sign_in.succeeded',
  outcome: 'success',
  actor: `user:${userId}`,
  ...aboutUser(userId),
  ip,
  details: { method: 'passkey', passkey: passkey.id, amr: [...amr] },
});

/**
 * An admin (Users page or CLI) removed all the user's passkeys (a lost security key or phone): they sign in with their
 * password and register passkeys again. Which ones, by row id and name, so the trail tells what was lost.
 */
export const passkeysResetEvent = (
  userId: number,
  passkeys: readonly { id: number; name: string }[],
): Omit<NewAuditEvent, 'actor' | 'ip'> => ({
  type: 'user.passkeys.reset',
  outcome: 'success',
  ...aboutUser(userId),
  details: { removed: passkeys.length, passkeys: passkeys.map(({ id, name }) => ({ id, name })) },
});

/**
 * Why a passkey sign-in was refused after its signature was checked, or before (an unknown credential, or at the
 * second step after a password another user's credential).
 */
export type PasskeyRefusal = 'counter_regression' | 'unknown_credential' | 'user_disabled' | 'verification_failed' | 'other_user';

export const passkeyRefusedEvent = (
  ip: string,
  reason: PasskeyRefusal,
  credential: { credentialId: string; userId?: number; detail?: string },
): NewAuditEvent => ({
  type: 'user.passkey.refused',
  outcome: 'failure',
  actor: 'anonymous',
  ...(credential.userId === undefined ? { subjectType: 'user' as const, subjectId: null } : aboutUser(credential.userId)),
  ip,
  details: { reason, credential_id: credential.credentialId, ...(credential.detail !== undefined && { detail: credential.detail }) },
});
