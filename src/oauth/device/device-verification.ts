import { recordAuditEventAlone } from '../audit/audit-trail.js';
import { consentEvent } from '../audit/token-events.js';
import type { OAuthDeps } from '../deps.js';
import type { AttemptOrigin } from '../limits/attempt-limits.js';
import { AccessDenied, InvalidGrant, TooManyAttempts } from '../errors.js';
import type { ApplicationRecord } from '../store.js';
import { mayStartDeviceFlow } from './device-authorization-request.js';
import type { DeviceApproval, DeviceAuthorizationRecord } from './device-authorization-store.js';
import { normalizedUserCode, storedUserCode } from './user-code.js';

// RFC 8628 section 3.3: the person enters the user code at /device, sees what the device asks for, and approves or
// denies. Section 5.1: user codes are short, so guessing is limited twice: every wrong code counts as a failure for
// the address (the failure limiter of rateLimit), and one code may be entered only so often
// (deviceAuthorization.maxEntriesPerCode; past it the device's authorization is denied).

/** A pending device authorization, as the page shows it, with the user code in the form the person typed. */
export interface EnteredCode {
  authorization: DeviceAuthorizationRecord;
  application: ApplicationRecord;
  userCode: string;
}

export class UnknownUserCode extends InvalidGrant {}

/** The user code of an authorization the same browser entered or decided, decided since (another tab, a race). */
export class AnsweredUserCode extends InvalidGrant {}

/** The entry past maxEntriesPerCode: the device's authorization is denied, so the person starts again on the device. */
export class UserCodeEnteredTooOften extends AccessDenied {
  constructor(readonly authorizationId: number) {
    super('This code was entered too often; start again on your device.');
  }
}

/**
 * The pending authorization of this user code, or UnknownUserCode (wrong, expired, decided, or its client gone),
 * counted as a failure for the address; TooManyAttempts while the address is locked out; UserCodeEnteredTooOften
 * past the code's limit. `entry` counts the entry against the code's limit (the code typed in, not the decision that
 * follows it). `enteredHere`: the authorizations this browser entered or decided; one of them decided meanwhile is
 * AnsweredUserCode, not counted (to anyone else a decided code is as unknown: no hint for guessing); `tooOftenHere`:
 * the one this browser entered too often, which stays UserCodeEnteredTooOften for it.
 */
export async function enteredUserCode(
  deps: OAuthDeps,
  input: string,
  { address, requestId }: AttemptOrigin,
  { entry, enteredHere = [], tooOftenHere }: { entry: boolean; enteredHere?: ReadonlyArray<number | undefined>; tooOftenHere?: number },
): Promise<EnteredCode> {
  const limiter = deps.limits.userCodes;
  const retryAfter = limiter.retryAfter([address], deps.now());
  if (retryAfter > 0) {
    throw new TooManyAttempts(retryAfter, `Too many wrong codes. Try again in ${retryAfter} ${retryAfter === 1 ? 'second' : 'seconds'}.`);
  }
  const found = await pendingAuthorization(deps, input);
  if (found !== null && 'answered' in found && found.answered === tooOftenHere) throw new UserCodeEnteredTooOften(found.answered);
  if (found !== null && 'answered' in found && enteredHere.includes(found.answered)) throw new AnsweredUserCode();
  if (found === null || 'answered' in found) {
    limiter.recordFailure([address], deps.now(), requestId);
    throw new UnknownUserCode();
  }
  if (entry) {
    const entries = await deps.stores.deviceAuthorizations.countEntry(found.authorization.id);
    if (entries === null) throw new UnknownUserCode();
    if (entries > deps.config.deviceAuthorization.maxEntriesPerCode) {
      await deps.stores.deviceAuthorizations.decide(found.authorization.id, null, deps.now());
      throw new UserCodeEnteredTooOften(found.authorization.id);
    }
  }
  return { ...found, userCode: input };
}

async function pendingAuthorization(deps: OAuthDeps, input: string): Promise<Omit<EnteredCode, 'userCode'> | { answered: number } | null> {
  const normalized = normalizedUserCode(input);
  if (normalized === null) return null;
  const authorization = await deps.stores.deviceAuthorizations.findByUserCode(storedUserCode(normalized));
  if (authorization && authorization.status !== 'pending') return { answered: authorization.id };
  if (!authorization || deps.now().getTime() >= authorization.expiresAt.getTime()) return null;
  const application = await deps.stores.applications.findById(authorization.applicationId);
  // A client that no longer may use the flow (disabled, its grant types changed) gets no approval.
  if (!application || application.disabledAt !== null || !mayStartDeviceFlow(deps, application)) return null;
  return { authorization, application };
}

/**
 * The person's decision, once: approved (by whom, signed in when) or denied. The consent is recorded as the code
 * flow's consent screen records it. False when the authorization was decided meanwhile (another tab, the limit).
 */
export async function decideDeviceAuthorization(
  deps: OAuthDeps,
  entered: EnteredCode,
  approval: DeviceApproval | null,
  { ip, report }: { ip: string; report: (error: unknown) => void },
): Promise<boolean> {
  const decided = await deps.stores.deviceAuthorizations.decide(entered.authorization.id, approval, deps.now());
  if (decided && approval) {
    const details = { scopes: entered.authorization.scopes, prompted: true, device: true };
    await recordAuditEventAlone(deps, consentEvent('consent.given', approval.resourceOwnerId, entered.application, ip, details), report);
  }
  return decided;
}
