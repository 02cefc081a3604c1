import type { OAuthDeps } from '../deps.js';
import { recordDomainEvent } from '../audit/audit-trail.js';
import { passkeyRefusedEvent, passkeySignInEvent, type PasskeyRefusal } from '../audit/passkey-events.js';
import type { UserRecord } from '../users/user-store.js';
import { isDisabled } from '../users/users.js';
import type { PasskeyRecord } from './passkey-store.js';
import { isSynced } from './passkeys.js';

// Signing in with a passkey, alone or as the second step after a password (issue 35 item 1). The ceremony (src/http/passkeys/) checks the signature, origin,
// rp id, challenge and user verification; this decides whether that verified assertion signs its user in: the
// credential must be known, its user enabled, and its signature counter must not go back (a cloned authenticator).

export type PasskeyLookup = { outcome: 'found'; passkey: PasskeyRecord; user: UserRecord } | { outcome: 'refused'; reason: PasskeyRefusal };

/**
 * The passkey and its user for a credential id an authenticator sent; a refusal is recorded. `expectedUserId`: the
 * second step after a password, where only that user's passkeys count (another user's is refused before its signature
 * is even checked: it could only be someone trying one account's password with another account's key).
 */
export async function passkeyForSignIn(deps: OAuthDeps, credentialId: string, ip: string, expectedUserId?: number): Promise<PasskeyLookup> {
  const passkey = await deps.stores.passkeys.findByCredentialId(credentialId);
  if (passkey === null) return refuse(deps, ip, 'unknown_credential', { credentialId });
  if (expectedUserId !== undefined && passkey.userId !== expectedUserId) {
    const detail = `the second step of user ${expectedUserId}`;
    return refuse(deps, ip, 'other_user', { credentialId, userId: passkey.userId, detail });
  }
  const user = await deps.stores.users.findById(passkey.userId);
  if (user === null || isDisabled(user)) return refuse(deps, ip, 'user_disabled', { credentialId, userId: passkey.userId });
  return { outcome: 'found', passkey, user };
}

/**
 * The user handle (WebAuthn user.id) a user's passkeys are registered with: the UTF-8 bytes of the random OpenID
 * subject, never the user name or the row id (section 14.6.1: it must not identify the user to others).
 */
export const passkeyUserHandle = (user: Pick<UserRecord, 'subject'>): Uint8Array<ArrayBuffer> => new TextEncoder().encode(user.subject);

/**
 * WebAuthn Level 3 section 7.2 step 6: whether the assertion's user handle (base64url, absent or empty: none) is the
 * credential owner's; null when it passes, else why not (the refusal's detail). Without a user identified before the
 * ceremony (a passkey alone), the handle names the account and MUST be present and be the owner's; with one (the
 * second step, the proof of an account) it MAY be left out, but if present MUST be that user's.
 */
export function userHandleProblem(
  owner: Pick<UserRecord, 'subject'>,
  userHandle: string | undefined,
  identifiedBefore: boolean,
): string | null {
  if (userHandle === undefined || userHandle === '') return identifiedBefore ? null : 'user handle missing';
  return Buffer.from(userHandle, 'base64url').equals(passkeyUserHandle(owner)) ? null : "user handle not the credential owner's";
}

/**
 * WebAuthn Level 3 section 6.1.1: a signature counter that is not above the stored one (when either is non-zero) means
 * the authenticator may have been cloned. A counter of 0 in both means the authenticator keeps none (synced passkeys).
 */
export const counterRegressed = (stored: number, received: number): boolean => (stored > 0 || received > 0) && received <= stored;

/**
 * RFC 8176 for a passkey sign-in: `swk` for a synced (multi-device, backed up) passkey, whose key lives in software
 * across devices; `hwk` for a device-bound one. Alone, user verification is required, so the authenticator also
 * checked a PIN or biometric locally: two factors, `mfa` (which one is not told to us, so neither `pin` nor `fpt`).
 * After a password (`afterPassword`) the two factors are the password and the key, listed as the TOTP step lists
 * `pwd` and `otp`: both methods, and no `mfa`, which they imply (levelOfAmr reads phr from the key either way).
 */
export const passkeyAmr = (passkey: Pick<PasskeyRecord, 'deviceType' | 'backedUp'>, afterPassword = false): string[] => {
  const key = isSynced(passkey) ? 'swk' : 'hwk';
  return afterPassword ? ['pwd', key] : [key, 'mfa'];
};

export type PasskeySignIn = { outcome: 'signed_in'; amr: string[] } | { outcome: 'refused'; reason: PasskeyRefusal };

/** After a verified assertion: refuses a counter regression, else records the use and the sign-in. */
export async function completePasskeySignIn(
  deps: OAuthDeps,
  passkey: PasskeyRecord,
  assertion: { signCount: number; backedUp: boolean },
  ip: string,
  afterPassword = false,
): Promise<PasskeySignIn> {
  const { credentialId, userId } = passkey;
  const detail = `stored ${passkey.signCount}, received ${assertion.signCount}`;
  if (counterRegressed(passkey.signCount, assertion.signCount))
    return refuse(deps, ip, 'counter_regression', { credentialId, userId, detail });
  // Only while the stored counter is the one checked: two uses of one counter value on two instances are one clone.
  const recorded = await deps.stores.passkeys.recordUse(passkey.id, passkey.signCount, assertion, deps.now());
  if (!recorded) return refuse(deps, ip, 'counter_regression', { credentialId, userId, detail: 'used concurrently' });
  const amr = passkeyAmr({ deviceType: passkey.deviceType, backedUp: assertion.backedUp }, afterPassword);
  await recordDomainEvent(deps, passkeySignInEvent(userId, ip, passkey, amr));
  return { outcome: 'signed_in', amr };
}

/** A ceremony that failed its checks (origin, rp id, signature, challenge): recorded against the credential's user. */
export async function refusePasskeyAssertion(deps: OAuthDeps, passkey: PasskeyRecord, ip: string, detail: string): Promise<void> {
  await recordDomainEvent(
    deps,
    passkeyRefusedEvent(ip, 'verification_failed', { credentialId: passkey.credentialId, userId: passkey.userId, detail }),
  );
}

async function refuse(
  deps: OAuthDeps,
  ip: string,
  reason: PasskeyRefusal,
  credential: { credentialId: string; userId?: number; detail?: string },
): Promise<{ outcome: 'refused'; reason: PasskeyRefusal }> {
  await recordDomainEvent(deps, passkeyRefusedEvent(ip, reason, credential));
  return { outcome: 'refused', reason };
}
