import type { FastifyReply, FastifyRequest } from 'fastify';
import type { OAuthDeps } from '../../../oauth/deps.js';
import { recordAuditEventAlone } from '../../../oauth/audit/audit-trail.js';
import { ownSecondFactorEvent, secondFactorFailedEvent } from '../../../oauth/audit/second-factor-events.js';
import { NotFound } from '../../../oauth/errors.js';
import { attemptOrigin } from '../../attempt-origin.js';
import {
  confirmOwnPassword,
  hasTotp,
  regenerateOwnRecoveryCodes,
  removeOwnSecondFactor,
} from '../../../oauth/second-factor/second-factors.js';
import type { UserRecord } from '../../../oauth/store.js';
import { findUser } from '../../../oauth/users/users.js';
import { auditWriteFailed } from '../../audit-actor.js';
import { currentResourceOwner } from '../../hooks/authenticate-resource-owner.js';
import { renderError } from '../../hooks/end-user-pages.js';
import { confirmEnrolment, renderEnrolment, renderRecoveryCodes } from './totp-enrolment.js';
import { ACCOUNT_PATH, renderAccountPage } from '../account/account-page.js';

// The account page's "Two-step verification" (issue 35 item 2): set up an authenticator app, new recovery codes, turn
// it off. The section itself is views/account/_second-factor.eta, on the account page.

export const ACCOUNT_SECOND_FACTOR_PATH = '/account/second-factor';

type Handler<Body = Record<string, never>> = (
  deps: OAuthDeps,
  request: FastifyRequest<{ Body: Body }>,
  reply: FastifyReply,
  user: UserRecord,
) => Promise<FastifyReply>;

/** Runs `handler` with the signed-in user's row; 404 if it went meanwhile. */
export const withAccountUser =
  <Body>(deps: OAuthDeps, handler: Handler<Body>) =>
  async (request: FastifyRequest<{ Body: Body }>, reply: FastifyReply): Promise<FastifyReply> => {
    const user = await findUser(deps, currentResourceOwner(request).id);
    if (user === null) return renderError(reply, new NotFound(request.pageLanguage.t('error.noSuchUser')));
    return handler(deps, request, reply, user);
  };

const enrolment = { action: ACCOUNT_SECOND_FACTOR_PATH, cancel: { href: ACCOUNT_PATH }, asksPassword: true };

/** GET /account/second-factor: the enrolment page (a user with a factor already goes back to the account page). */
export const showAccountEnrolment: Handler = async (deps, request, reply, user) =>
  (await hasTotp(deps, user.id)) ? reply.redirect(ACCOUNT_PATH, 303) : renderEnrolment(deps, request, reply, user, enrolment);

/** POST /account/second-factor: the current password and the confirming code. */
export const confirmAccountEnrolment: Handler<{ code?: string; current?: string }> = async (deps, request, reply, user) => {
  const { t } = request.pageLanguage;
  // The form posted again (back, or a second tab) once the factor is on: a new secret would replace it unasked.
  if (await hasTotp(deps, user.id)) {
    request.session.set('notice', t('secondFactor.alreadyOn'));
    return reply.redirect(ACCOUNT_PATH, 303);
  }
  const password = await confirmOwnPassword(deps, user, request.body?.current ?? '', attemptOrigin(request));
  if (password !== 'ok') {
    const locked = typeof password === 'object';
    const error = locked ? t('login.lockedOut', { seconds: password.retryAfter }) : t('account.wrongPassword');
    if (locked) reply.header('retry-after', String(password.retryAfter));
    return renderEnrolment(deps, request, reply.code(locked ? 429 : 401), user, { ...enrolment, error, errorAt: 'current_password' });
  }
  const code = request.body?.code ?? '';
  const missing = code.trim() === '';
  const result = missing ? null : await confirmEnrolment(deps, request, user, code);
  if (result === null || result.outcome === 'wrong_code')
    return renderEnrolment(deps, request, reply.code(422), user, {
      ...enrolment,
      error: t(missing ? 'secondFactor.missingCode' : 'secondFactor.wrongCode'),
    });
  return renderRecoveryCodes(request, reply, result.recoveryCodes, ACCOUNT_PATH);
};

/** POST /account/second-factor/recovery-codes: with the current password or a code, ten new codes; the old ones stop working. */
export const newAccountRecoveryCodes: Handler<{ proof?: string }> = async (deps, request, reply, user) => {
  if (!(await hasTotp(deps, user.id))) return reply.redirect(ACCOUNT_PATH, 303);
  const { t } = request.pageLanguage;
  const regeneration = await regenerateOwnRecoveryCodes(deps, user, request.body?.proof ?? '', attemptOrigin(request));
  await recordProofFailure(deps, request, user, regeneration.outcome);
  if (regeneration.outcome === 'wrong_proof')
    return renderAccountPage(deps, request, reply.code(401), { recoveryCodesError: t('secondFactor.wrongProof') });
  if (regeneration.outcome === 'locked_out') {
    const locked = reply.code(429).header('retry-after', String(regeneration.retryAfter));
    return renderAccountPage(deps, request, locked, { recoveryCodesError: t('login.lockedOut', { seconds: regeneration.retryAfter }) });
  }
  const { codes } = regeneration;
  await recordAuditEventAlone(
    deps,
    ownSecondFactorEvent('user.recovery_codes.regenerated', user.id, request.ip),
    auditWriteFailed(() => request.log),
  );
  return renderRecoveryCodes(request, reply, codes, ACCOUNT_PATH);
};

/** POST /account/second-factor/remove: with the current password or a code, when no policy requires the factor. */
export const removeAccountSecondFactor: Handler<{ proof?: string }> = async (deps, request, reply, user) => {
  const { t } = request.pageLanguage;
  const removal = await removeOwnSecondFactor(deps, user, request.body?.proof ?? '', attemptOrigin(request));
  await recordProofFailure(deps, request, user, removal.outcome);
  switch (removal.outcome) {
    case 'not_allowed':
      request.session.set('notice', t('secondFactor.removalNotAllowed'));
      return reply.redirect(ACCOUNT_PATH, 303);
    // At the field, announced, as the password change's refusals are; not as a notice at the top of the page.
    case 'wrong_proof':
      return renderAccountPage(deps, request, reply.code(401), { secondFactorError: t('secondFactor.wrongProof') });
    case 'locked_out': {
      const locked = reply.code(429).header('retry-after', String(removal.retryAfter));
      return renderAccountPage(deps, request, locked, { secondFactorError: t('login.lockedOut', { seconds: removal.retryAfter }) });
    }
    case 'removed':
      await recordAuditEventAlone(
        deps,
        ownSecondFactorEvent('user.second_factor.removed', user.id, request.ip),
        auditWriteFailed(() => request.log),
      );
      request.log.info({ event: 'second_factor.removed', userId: user.id }, 'a second factor was turned off by its user');
      request.session.set('notice', t('secondFactor.removed'));
      return reply.redirect(ACCOUNT_PATH, 303);
  }
};

// A wrong or replayed proof is what a stolen code looks like: in the trail as at the second step (behaviour 3.19).
async function recordProofFailure(deps: OAuthDeps, request: FastifyRequest, user: UserRecord, outcome: string): Promise<void> {
  if (outcome !== 'wrong_proof' && outcome !== 'locked_out') return;
  const event = secondFactorFailedEvent(user.id, request.ip, outcome === 'locked_out' ? 'locked_out' : 'invalid_code', 'account');
  await recordAuditEventAlone(
    deps,
    event,
    auditWriteFailed(() => request.log),
  );
}
