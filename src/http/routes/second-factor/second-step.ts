import { setTimeout as sleep } from 'node:timers/promises';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { OAuthDeps } from '../../../oauth/deps.js';
import { recordAuditEventAlone } from '../../../oauth/audit/audit-trail.js';
import { ownSecondFactorEvent, secondFactorFailedEvent } from '../../../oauth/audit/second-factor-events.js';
import { secondStepSignInEvent } from '../../../oauth/audit/sign-in-events.js';
import { attemptOrigin } from '../../attempt-origin.js';
import { checkSecondFactor, hasTotp, recoveryCodesLeft } from '../../../oauth/second-factor/second-factors.js';
import type { UserRecord } from '../../../oauth/store.js';
import { hasPasskeys } from '../../../oauth/passkeys/passkeys.js';
import { auditWriteFailed } from '../../audit-actor.js';
import { finishSignIn } from '../../complete-sign-in.js';
import { renderPage } from '../../hooks/end-user-pages.js';
import { passkeyScriptTags } from '../../passkeys/passkey-scripts.js';
import { endPendingSignIn, keepPendingUser, type PendingHandler } from './pending-sign-in.js';
import { confirmEnrolment, renderEnrolment, renderRecoveryCodes } from './totp-enrolment.js';

// /login/second-factor (issue 35 items 1 and 2): the step after a right password, for a user who must give a second
// factor: a code of their authenticator app, a recovery code, or one of their passkeys (passkey-second-step.ts). A user
// who has neither an app nor a passkey sets up the app here. One who has either gives it: the password alone must never
// add a factor (with passkeys only, the app is set up on the account page once signed in with one).

export const SECOND_STEP_PATH = '/login/second-factor';
export const SECOND_STEP_ENROL_PATH = `${SECOND_STEP_PATH}/enrol`;
export const SECOND_STEP_CANCEL_PATH = `${SECOND_STEP_PATH}/cancel`;
// As after a wrong password (login route): a wrong code costs time before the lockout starts.
const FAILURE_DELAY_MS = 300;

/** After the password: remember who is half signed in, and on to the second step. */
export function startSecondStep(deps: OAuthDeps, request: FastifyRequest, reply: FastifyReply, user: UserRecord): FastifyReply {
  keepPendingUser(deps, request, user);
  return reply.redirect(SECOND_STEP_PATH, 303);
}

interface SecondFactors {
  totp: boolean;
  passkeys: boolean;
}

const secondFactorsOf = async (deps: OAuthDeps, user: UserRecord): Promise<SecondFactors> => {
  const [totp, passkeys] = await Promise.all([hasTotp(deps, user.id), hasPasskeys(deps, user.id)]);
  return { totp, passkeys };
};

/** The second step's page: the code form when the app is set up, the passkey button when the user has passkeys. */
async function secondStepPage(
  deps: OAuthDeps,
  request: FastifyRequest,
  reply: FastifyReply,
  user: UserRecord,
  error: string | null = null,
  factors?: SecondFactors,
) {
  const { totp, passkeys } = factors ?? (await secondFactorsOf(deps, user));
  return renderPage(request, reply, 'second-factor/code.eta', {
    title: request.pageLanguage.t('secondFactor.title'),
    error,
    csrfToken: reply.generateCsrf(),
    totp,
    passkeys,
    cancelAction: SECOND_STEP_CANCEL_PATH,
    passkeyScripts: passkeys ? passkeyScriptTags() : [],
  });
}

const enrolmentPage = (deps: OAuthDeps, request: FastifyRequest, reply: FastifyReply, user: UserRecord, error?: string) =>
  renderEnrolment(deps, request, reply, user, {
    action: SECOND_STEP_ENROL_PATH,
    cancel: { action: SECOND_STEP_CANCEL_PATH },
    ...(error && { error }),
  });

const hasSecondFactor = async (deps: OAuthDeps, user: UserRecord): Promise<boolean> => {
  const { totp, passkeys } = await secondFactorsOf(deps, user);
  return totp || passkeys;
};

/** GET: the code form and/or passkey button, or the enrolment of a user who has neither and must give a second factor. */
export const showSecondStep: PendingHandler = async (deps, request, reply, user) => {
  const factors = await secondFactorsOf(deps, user);
  return factors.totp || factors.passkeys
    ? secondStepPage(deps, request, reply, user, null, factors)
    : enrolmentPage(deps, request, reply, user);
};

/** GET /login/second-factor/enrol: the enrolment's own address; a user who has a second factor gives it instead. */
export const showSecondStepEnrolment: PendingHandler = async (deps, request, reply, user) =>
  (await hasSecondFactor(deps, user)) ? reply.redirect(SECOND_STEP_PATH, 303) : enrolmentPage(deps, request, reply, user);

/**
 * POST /login/second-factor/cancel (the pages' "Cancel", a form with the CSRF token, not a link: a GET must change
 * nothing): the pending sign-in ends, and the browser goes back to /login.
 */
export function cancelSecondStep(request: FastifyRequest, reply: FastifyReply): FastifyReply {
  endPendingSignIn(request);
  return reply.redirect('/login', 303);
}

/** POST: a TOTP code or a recovery code; right, the sign-in completes with amr pwd and otp (the mfa acr). */
export const submitSecondStep: PendingHandler<{ code?: string }> = async (deps, request, reply, user) => {
  const { t } = request.pageLanguage;
  const code = request.body?.code ?? '';
  if (code.trim() === '') return secondStepPage(deps, request, reply.code(400), user, t('secondFactor.missingCode'));
  const origin = attemptOrigin(request);
  const { address } = origin;
  const check = await checkSecondFactor(deps, user, code, origin);
  const report = auditWriteFailed(() => request.log);
  if (check.outcome !== 'succeeded') {
    const lockedOut = check.outcome === 'locked_out';
    await recordAuditEventAlone(deps, secondFactorFailedEvent(user.id, request.ip, lockedOut ? 'locked_out' : 'invalid_code'), report);
    request.log.info({ event: 'second_factor.failed', userId: user.id, address, lockedOut }, 'second factor refused');
    if (check.outcome === 'locked_out') {
      const error = t('login.lockedOut', { seconds: check.retryAfter });
      return secondStepPage(deps, request, reply.code(429).header('retry-after', String(check.retryAfter)), user, error);
    }
    await sleep(FAILURE_DELAY_MS);
    return secondStepPage(deps, request, reply.code(401), user, t('secondFactor.wrongCode'));
  }
  if (check.method === 'recovery_code') {
    const left = await recoveryCodesLeft(deps, user.id);
    await recordAuditEventAlone(deps, ownSecondFactorEvent('user.recovery_code.used', user.id, request.ip, { left }), report);
  }
  await recordAuditEventAlone(deps, secondStepSignInEvent(user, request.ip, check.method), report);
  // RFC 8176: a recovery code is a one-time code of the possession factor, as the app's codes are (not kba, which is
  // answers to questions a person knows); with the password the sign-in reaches mfa.
  return reply.redirect(await finishSignIn(deps, request, user, ['pwd', 'otp']), 303);
};

/** POST /login/second-factor/enrol: a user who must give a second factor and has none sets it up, then is signed in with it. */
export const submitSecondStepEnrolment: PendingHandler<{ code?: string }> = async (deps, request, reply, user) => {
  if (await hasSecondFactor(deps, user)) return reply.redirect(SECOND_STEP_PATH, 303);
  const code = request.body?.code ?? '';
  // An empty code is a code not typed, not a wrong one (as at the second step).
  if (code.trim() === '') return enrolmentPage(deps, request, reply.code(422), user, request.pageLanguage.t('secondFactor.missingCode'));
  const enrolment = await confirmEnrolment(deps, request, user, code);
  if (enrolment.outcome === 'wrong_code')
    return enrolmentPage(deps, request, reply.code(422), user, request.pageLanguage.t('secondFactor.wrongCode'));
  await recordAuditEventAlone(
    deps,
    secondStepSignInEvent(user, request.ip, 'totp'),
    auditWriteFailed(() => request.log),
  );
  const next = await finishSignIn(deps, request, user, ['pwd', 'otp']);
  return renderRecoveryCodes(request, reply, enrolment.recoveryCodes, next);
};
