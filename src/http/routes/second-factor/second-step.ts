import { setTimeout as sleep } from 'node:timers/promises';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { OAuthDeps } from '../../../oauth/deps.js';
import { recordAuditEventAlone } from '../../../oauth/audit/audit-trail.js';
import { ownSecondFactorEvent, secondFactorFailedEvent } from '../../../oauth/audit/second-factor-events.js';
import { limitedAddress } from '../../../oauth/limits/limited-address.js';
import { checkSecondFactor, hasTotp, recoveryCodesLeft } from '../../../oauth/second-factor/second-factors.js';
import type { UserRecord } from '../../../oauth/store.js';
import { findUser, isDisabled } from '../../../oauth/users/users.js';
import { auditWriteFailed } from '../../audit-actor.js';
import { finishSignIn } from '../../complete-sign-in.js';
import { renderPage } from '../../hooks/end-user-pages.js';
import { confirmEnrolment, renderEnrolment, renderRecoveryCodes } from './totp-enrolment.js';

// /login/second-factor (issue 35 item 2): the step after a right password, for a user who must give a second factor.
// Until it is passed the browser is only half signed in: the user's id in the encrypted session cookie for a few
// minutes, never a login session, so no page or authorization request sees anyone signed in.

export const SECOND_STEP_PATH = '/login/second-factor';
const PENDING_SECONDS = 5 * 60;
// As after a wrong password (login route): a wrong code costs time before the lockout starts.
const FAILURE_DELAY_MS = 300;

/** After the password: remember who is half signed in, and on to the second step. */
export function startSecondStep(deps: OAuthDeps, request: FastifyRequest, reply: FastifyReply, user: UserRecord): FastifyReply {
  request.session.set('pendingSignIn', { userId: user.id, until: deps.now().getTime() + PENDING_SECONDS * 1000 });
  return reply.redirect(SECOND_STEP_PATH, 303);
}

/** The half-signed-in user, or null (none, expired, or since deleted or disabled). */
async function pendingUser(deps: OAuthDeps, request: FastifyRequest): Promise<UserRecord | null> {
  const pending = request.session.get('pendingSignIn');
  if (pending === undefined || pending.until <= deps.now().getTime()) return null;
  const user = await findUser(deps, pending.userId);
  return user === null || isDisabled(user) ? null : user;
}

function backToLogin(request: FastifyRequest, reply: FastifyReply): FastifyReply {
  request.session.set('pendingSignIn', undefined);
  request.session.set('notice', request.pageLanguage.t('secondFactor.expired'));
  return reply.redirect('/login', 303);
}

const codePage = (request: FastifyRequest, reply: FastifyReply, error: string | null = null) =>
  renderPage(request, reply, 'second-factor/code.eta', {
    title: request.pageLanguage.t('secondFactor.title'),
    error,
    csrfToken: reply.generateCsrf(),
  });

const enrolmentPage = (deps: OAuthDeps, request: FastifyRequest, reply: FastifyReply, user: UserRecord, error?: string) =>
  renderEnrolment(deps, request, reply, user, { action: `${SECOND_STEP_PATH}/enrol`, cancel: '/login', ...(error && { error }) });

/** GET: the code form, or the enrolment of a user who has no second factor yet and must give one. */
export async function showSecondStep(deps: OAuthDeps, request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
  const user = await pendingUser(deps, request);
  if (user === null) return backToLogin(request, reply);
  return (await hasTotp(deps, user.id)) ? codePage(request, reply) : enrolmentPage(deps, request, reply, user);
}

/** POST: a TOTP code or a recovery code; right, the sign-in completes with amr pwd and otp (the mfa acr). */
export async function submitSecondStep(
  deps: OAuthDeps,
  request: FastifyRequest<{ Body: { code?: string } }>,
  reply: FastifyReply,
): Promise<FastifyReply> {
  const user = await pendingUser(deps, request);
  if (user === null) return backToLogin(request, reply);
  const { t } = request.pageLanguage;
  const code = request.body?.code ?? '';
  if (code.trim() === '') return codePage(request, reply.code(400), t('secondFactor.missingCode'));
  const address = limitedAddress(request.ip);
  const check = await checkSecondFactor(deps, user, code, address);
  const report = auditWriteFailed(() => request.log);
  if (check.outcome !== 'succeeded') {
    const lockedOut = check.outcome === 'locked_out';
    await recordAuditEventAlone(deps, secondFactorFailedEvent(user.id, request.ip, lockedOut ? 'locked_out' : 'invalid_code'), report);
    request.log.info({ event: 'second_factor.failed', userId: user.id, address, lockedOut }, 'second factor refused');
    if (check.outcome === 'locked_out') {
      const error = t('login.lockedOut', { seconds: check.retryAfter });
      return codePage(request, reply.code(429).header('retry-after', String(check.retryAfter)), error);
    }
    await sleep(FAILURE_DELAY_MS);
    return codePage(request, reply.code(401), t('secondFactor.wrongCode'));
  }
  if (check.method === 'recovery_code') {
    const left = await recoveryCodesLeft(deps, user.id);
    await recordAuditEventAlone(deps, ownSecondFactorEvent('user.recovery_code.used', user.id, request.ip, { left }), report);
  }
  // RFC 8176: a recovery code is a one-time code of the possession factor, as the app's codes are (not kba, which is
  // answers to questions a person knows); with the password the sign-in reaches mfa.
  return reply.redirect(await finishSignIn(deps, request, user, ['pwd', 'otp']), 303);
}

/** POST /login/second-factor/enrol: a user who must give a second factor sets it up, then is signed in with it. */
export async function submitSecondStepEnrolment(
  deps: OAuthDeps,
  request: FastifyRequest<{ Body: { code?: string } }>,
  reply: FastifyReply,
): Promise<FastifyReply> {
  const user = await pendingUser(deps, request);
  if (user === null) return backToLogin(request, reply);
  if (await hasTotp(deps, user.id)) return codePage(request, reply);
  const enrolment = await confirmEnrolment(deps, request, user, request.body?.code ?? '');
  if (enrolment.outcome === 'wrong_code')
    return enrolmentPage(deps, request, reply.code(422), user, request.pageLanguage.t('secondFactor.wrongCode'));
  const next = await finishSignIn(deps, request, user, ['pwd', 'otp']);
  return renderRecoveryCodes(request, reply, enrolment.recoveryCodes, next);
}
