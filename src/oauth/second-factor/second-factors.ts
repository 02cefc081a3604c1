import type { Config } from '../../config/types.js';
import { targetLevel } from '../authentication-context.js';
import type { AuthorizationRequest } from '../authorization/authorization-request.js';
import type { OAuthDeps } from '../deps.js';
import type { AttemptOrigin, PasswordOutcome } from '../limits/attempt-limits.js';
import type { UserRecord } from '../store.js';
import { looksLikeRecoveryCode, matchingRecoveryCode, newRecoveryCodes, recoveryCodeHash } from './recovery-codes.js';
import type * as Totp from './totp.js';
import { isTotpCode } from './typed-code.js';
import { checkLoginCredentials } from '../users/users.js';

// A user's second factor (issue 35 item 2): a TOTP authenticator confirmed by one code, and recovery codes for when it
// is lost. A code is accepted once: its time step is recorded atomically, and a code of that step or an earlier one is
// refused on every instance. Wrong codes are limited as wrong passwords are (per user name and address), apart from them.

// otplib is loaded when a code is first checked: the `users` commands import this file and check none (issue 30).
const totpStep = async (...args: Parameters<typeof Totp.totpStep>) => (await import('./totp.js')).totpStep(...args);

/** users.mfa: off (sign-in asks for no second factor of its own accord), optional (when set up), required. */
export type MfaPolicy = 'off' | 'optional' | 'required';
export const MFA_POLICIES: readonly MfaPolicy[] = ['off', 'optional', 'required'];

export const mfaPolicyOf = (user: UserRecord): MfaPolicy =>
  MFA_POLICIES.includes(user.mfa as MfaPolicy) ? (user.mfa as MfaPolicy) : 'optional';

export function hasTotp(deps: Pick<OAuthDeps, 'stores'>, userId: number): Promise<boolean> {
  return deps.stores.secondFactors.hasTotp(userId);
}

/** Whether the server's policy (config authentication.requireSecondFactor) requires it for a sign-in for `clientId`. */
export function serverRequiresSecondFactor(config: Pick<Config, 'authentication'>, clientId: string | null): boolean {
  const required = config.authentication.requireSecondFactor;
  return required === true || (Array.isArray(required) && clientId !== null && required.includes(clientId));
}

/** Whether a sign-in of this user asks for the second step; `requested`: the request wants it (acr_values, a listed client). */
export async function secondStepNeeded(
  deps: Pick<OAuthDeps, 'stores' | 'config'>,
  user: UserRecord,
  requested: boolean,
  passkeyRequested = false,
): Promise<boolean> {
  const policy = mfaPolicyOf(user);
  if (requested || policy === 'required' || serverRequiresSecondFactor(deps.config, null)) return true;
  // phr asked for: a user with a passkey gives it after the password; one without is not sent to set up an app (which
  // would not reach phr either), the level is given up (behaviour 3.17).
  if (passkeyRequested && (await deps.stores.passkeys.listOfUser(user.id)).length > 0) return true;
  return policy !== 'off' && (await hasTotp(deps, user.id));
}

/** Whether the user may turn their second factor off (neither their own policy nor the server's requires it). */
export const mayRemoveSecondFactor = (config: Pick<Config, 'authentication'>, user: UserRecord): boolean =>
  mfaPolicyOf(user) !== 'required' && config.authentication.requireSecondFactor !== true;

export type Enrolment = { outcome: 'enrolled'; recoveryCodes: string[] } | { outcome: 'wrong_code' };

/**
 * Confirms an authenticator: `code` must be one of `secret`'s. Stores the secret (replacing one set up before) with ten
 * new recovery codes, returned once, and records the code's step as used, so it cannot sign in a second time.
 */
export async function enrolTotp(deps: Pick<OAuthDeps, 'stores' | 'now'>, userId: number, secret: string, code: string): Promise<Enrolment> {
  const step = await totpStep(secret, code.trim(), deps.now());
  if (step === null) return { outcome: 'wrong_code' };
  const recoveryCodes = newRecoveryCodes();
  await deps.stores.secondFactors.saveTotp(userId, secret, recoveryCodes.map(recoveryCodeHash), deps.now());
  await deps.stores.secondFactors.useStep(userId, step);
  return { outcome: 'enrolled', recoveryCodes };
}

export type SecondFactorCheck =
  { outcome: 'succeeded'; method: 'totp' | 'recovery_code' } | { outcome: 'failed' } | { outcome: 'locked_out'; retryAfter: number };

/** The second step's check of a TOTP code or a recovery code, limited like a password. */
export async function checkSecondFactor(
  deps: OAuthDeps,
  user: UserRecord,
  code: string,
  origin: AttemptOrigin,
): Promise<SecondFactorCheck> {
  const attempt = await deps.limits.secondFactors.begin('second_factor', user.username, origin, deps.now);
  if (attempt.refused) return { outcome: 'locked_out', retryAfter: attempt.retryAfter };
  let method: 'totp' | 'recovery_code' | null = null;
  let outcome: PasswordOutcome = 'unchecked';
  try {
    method = await acceptedMethod(deps, user.id, code.trim());
    outcome = method === null ? 'failed' : 'succeeded';
  } finally {
    attempt.settle(outcome, deps.now());
  }
  return method === null ? { outcome: 'failed' } : { outcome: 'succeeded', method };
}

async function acceptedMethod(deps: OAuthDeps, userId: number, code: string): Promise<'totp' | 'recovery_code' | null> {
  const { secondFactors } = deps.stores;
  if (looksLikeRecoveryCode(code)) {
    const match = matchingRecoveryCode(code, await secondFactors.unusedRecoveryCodes(userId));
    return match !== null && (await secondFactors.useRecoveryCode(match.id, deps.now())) ? 'recovery_code' : null;
  }
  const factor = await secondFactors.findTotp(userId);
  if (factor === null) return null;
  const step = await totpStep(factor.secret, code, deps.now());
  // The same code (or an older one) again, here or on another instance: the UPDATE finds a later step recorded.
  return step !== null && (await secondFactors.useStep(userId, step)) ? 'totp' : null;
}

/** How many recovery codes the user has left. */
export async function recoveryCodesLeft(deps: Pick<OAuthDeps, 'stores'>, userId: number): Promise<number> {
  return (await deps.stores.secondFactors.unusedRecoveryCodes(userId)).length;
}

/** Ten new recovery codes, returned once; the old ones stop working. Unchecked: the CLI's and the enrolment's. */
export async function regenerateRecoveryCodes(deps: Pick<OAuthDeps, 'stores' | 'now'>, userId: number): Promise<string[]> {
  const codes = newRecoveryCodes();
  await deps.stores.secondFactors.replaceRecoveryCodes(userId, codes.map(recoveryCodeHash), deps.now());
  return codes;
}

/** Sets the user's own policy (users.mfa); false when the user is gone. */
export function setMfaPolicy(deps: Pick<OAuthDeps, 'stores'>, user: UserRecord, policy: MfaPolicy): Promise<boolean> {
  return deps.stores.secondFactors.setPolicy(user.id, policy);
}

export const isMfaPolicy = (value: unknown): value is MfaPolicy => MFA_POLICIES.includes(value as MfaPolicy);

/** The authenticator and recovery codes go; false when the user had none. */
export function removeSecondFactor(deps: Pick<OAuthDeps, 'stores'>, userId: number): Promise<boolean> {
  return deps.stores.secondFactors.remove(userId);
}

/**
 * The signed-in user's current password, before their second factor is set up from the account page: a browser left
 * signed in must not be enough to put someone else's authenticator on the account. Counted as a sign-in attempt.
 */
export async function confirmOwnPassword(
  deps: OAuthDeps,
  user: UserRecord,
  password: string,
  origin: AttemptOrigin,
): Promise<'ok' | 'wrong' | { retryAfter: number }> {
  const check = await checkLoginCredentials(deps, user.username, password, origin);
  if (check.outcome === 'locked_out') return { retryAfter: check.retryAfter };
  return check.outcome === 'succeeded' && check.user.id === user.id ? 'ok' : 'wrong';
}

type ProofCheck = { outcome: 'proven' } | { outcome: 'wrong_proof' } | { outcome: 'locked_out'; retryAfter: number };

/**
 * The signed-in user's current password or a code of their factor, before a change to that factor: a browser left
 * signed in is not enough. Both checks count against the sign-in limits.
 */
async function checkOwnProof(deps: OAuthDeps, user: UserRecord, proof: string, origin: AttemptOrigin): Promise<ProofCheck> {
  const check =
    isTotpCode(proof) || looksLikeRecoveryCode(proof)
      ? await checkSecondFactor(deps, user, proof, origin)
      : await checkLoginCredentials(deps, user.username, proof, origin);
  if (check.outcome === 'locked_out') return check;
  if (check.outcome === 'failed' || ('user' in check && check.user.id !== user.id)) return { outcome: 'wrong_proof' };
  return { outcome: 'proven' };
}

export type RemovalCheck = { outcome: 'removed' } | { outcome: 'not_allowed' } | Exclude<ProofCheck, { outcome: 'proven' }>;

/** The user turns their second factor off: allowed unless a policy requires it, and only with a proof (checkOwnProof). */
export async function removeOwnSecondFactor(
  deps: OAuthDeps,
  user: UserRecord,
  proof: string,
  origin: AttemptOrigin,
): Promise<RemovalCheck> {
  if (!mayRemoveSecondFactor(deps.config, user)) return { outcome: 'not_allowed' };
  const check = await checkOwnProof(deps, user, proof, origin);
  if (check.outcome !== 'proven') return check;
  await removeSecondFactor(deps, user.id);
  return { outcome: 'removed' };
}

export type RegenerationCheck = { outcome: 'regenerated'; codes: string[] } | Exclude<ProofCheck, { outcome: 'proven' }>;

/**
 * The user's new recovery codes, with a proof (checkOwnProof): codes are a factor, so whoever holds only the browser
 * must not print a set for themselves (and then turn the factor off with one of them).
 */
export async function regenerateOwnRecoveryCodes(
  deps: OAuthDeps,
  user: UserRecord,
  proof: string,
  origin: AttemptOrigin,
): Promise<RegenerationCheck> {
  const check = await checkOwnProof(deps, user, proof, origin);
  if (check.outcome !== 'proven') return check;
  return { outcome: 'regenerated', codes: await regenerateRecoveryCodes(deps, user.id) };
}

/**
 * What the sign-in an authorization request sends the user to must end with: `mfa`, the second step (its acr_values or
 * essential acr reach mfa, or its client is listed in authentication.requireSecondFactor); `phr`, a passkey after the
 * password for a user who has one (the one second step that reaches phr); or null.
 */
export function secondFactorWantedFor(config: Pick<Config, 'authentication'>, request: AuthorizationRequest): 'mfa' | 'phr' | null {
  const target = targetLevel(request.oidc.acrValues, config.authentication.acr);
  if (target === 'mfa' || serverRequiresSecondFactor(config, request.application.uid)) return 'mfa';
  return target === 'phr' ? 'phr' : null;
}
