import type { FastifyReply, FastifyRequest } from 'fastify';
import type { OAuthDeps } from '../../../oauth/deps.js';
import { NotFound } from '../../../oauth/errors.js';
import { sessionEndedEvent } from '../../../oauth/audit/sign-in-events.js';
import { attemptOrigin } from '../../attempt-origin.js';
import { endOtherSessionsOfUser, endSessionOfUser, sessionsOfUser } from '../../../oauth/sessions/login-sessions.js';
import type { LoginSessionRecord } from '../../../oauth/sessions/login-session-store.js';
import { changeOwnPassword, type PasswordChangeErrors, type PasswordChangeForm } from '../../../oauth/users/password-change.js';
import { checkLoginCredentials, findUser, type PasswordProblem } from '../../../oauth/users/users.js';
import { hasTotp, mayRemoveSecondFactor, recoveryCodesLeft } from '../../../oauth/second-factor/second-factors.js';
import type { UserRecord } from '../../../oauth/store.js';
import { userActor } from '../../audit-actor.js';
import { announceEndedSession, endLoginSession } from '../../end-login-session.js';
import { currentResourceOwner, type SignedInUser } from '../../hooks/authenticate-resource-owner.js';
import { renderError, renderPage } from '../../hooks/end-user-pages.js';
import { pageTime } from '../../page-time.js';
import { passkeySection, type PasskeyRenameError } from '../passkeys/account-passkeys.js';
import { userAgentSummary } from './user-agent-summary.js';
import { identitySection } from './account-identities.js';
import { removeUserIdentity } from '../../../oauth/users/user-identities.js';
import type { IdentityKey } from '../../../oauth/users/user-identity-store.js';
import type { PageLanguage, Translate } from '../../i18n/page-language.js';

// The account page (issue 35 item 5): who is signed in, their password, their second factor (its own section and
// routes: routes/second-factor/), their sign-in identities (issue 37) and their sessions on every device, in the user's
// language.

export const ACCOUNT_PATH = '/account';

/** The password form's errors per field; a wrong current password is shown at its field, as a blank one is. */
type PasswordFormErrors = Omit<PasswordChangeErrors, 'current'> & { current?: { problem: 'blank' | 'wrong' } };

interface PageState {
  passwordErrors?: PasswordFormErrors;
  /** The password form's one message above its fields (a lockout). */
  passwordError?: string;
  /** The identities section's refusal (the user's last way to sign in). */
  identityError?: string;
  /** The second factor's removal refused: a wrong password or code, a lockout; shown at its field. */
  secondFactorError?: string;
  /** New recovery codes refused: a wrong password or code, a lockout; shown at that form's field. */
  recoveryCodesError?: string;
  /** A passkey's new name refused (blank, too long); shown at that passkey's field. */
  passkeyRenameError?: PasskeyRenameError;
}

/** GET /account, or the page again with the password form's errors. */
export async function renderAccountPage(deps: OAuthDeps, request: FastifyRequest, reply: FastifyReply, state: PageState = {}) {
  const owner = currentResourceOwner(request);
  const user = await findUser(deps, owner.id);
  const sessions = await sessionsOfUser(deps, owner.id);
  return renderPage(request, reply, 'account/index.eta', {
    title: request.pageLanguage.t('account.title'),
    username: owner.username,
    name: user?.name ?? null,
    sessions: sessions.map((session) => sessionView(session, owner, request.pageLanguage)),
    passkeys: await passkeySection(deps, owner.id, request.pageLanguage.locale, state.passkeyRenameError),
    identities: await identitySection(deps, owner.id, request.pageLanguage, state.identityError),
    passwordErrors: passwordErrorMessages(state.passwordErrors ?? {}, request.pageLanguage.t),
    passwordError: state.passwordError ?? null,
    secondFactor: user === null ? { enrolled: false } : await secondFactorSection(deps, user),
    secondFactorError: state.secondFactorError ?? null,
    recoveryCodesError: state.recoveryCodesError ?? null,
    csrfToken: reply.generateCsrf(),
  });
}

/** The password form's errors in the page's language, per field (what _password-field.eta lists). */
function passwordErrorMessages(errors: PasswordFormErrors, t: Translate): Partial<Record<keyof PasswordFormErrors, string[]>> {
  const { current, password, confirmation } = errors;
  return {
    ...(current && { current: [current.problem === 'blank' ? t('account.currentPasswordBlank') : t('account.wrongPassword')] }),
    ...(password && {
      password: [newPasswordMessage(password, t)],
    }),
    ...(confirmation && { confirmation: [t('account.confirmationMismatch')] }),
  };
}

function newPasswordMessage(found: PasswordProblem, t: Translate): string {
  switch (found.problem) {
    case 'blank':
      return t('account.newPasswordBlank');
    case 'too_short':
      return t('account.newPasswordTooShort', found);
    case 'too_long':
      return t('account.newPasswordTooLong', found);
  }
}

async function secondFactorSection(deps: OAuthDeps, user: UserRecord) {
  const enrolled = await hasTotp(deps, user.id);
  return {
    enrolled,
    recoveryCodesLeft: enrolled ? await recoveryCodesLeft(deps, user.id) : 0,
    removable: mayRemoveSecondFactor(deps.config, user),
  };
}

function sessionView(session: LoginSessionRecord, owner: SignedInUser, { t, locale }: PageLanguage) {
  const words = {
    on: (browser: string, system: string) => t('account.browserOn', { browser, system }),
    unknown: t('account.unknownBrowser'),
  };
  return {
    id: session.id,
    device: userAgentSummary(session.userAgent, words),
    userAgent: session.userAgent ?? '',
    ip: session.ip ?? t('account.unknownAddress'),
    signedIn: pageTime(session.authTime, locale),
    lastSeen: pageTime(session.lastSeenAt, locale),
    current: session.id === owner.loginSessionId,
  };
}

export type PasswordChangeBody = Partial<PasswordChangeForm> & { sign_out_others?: string };

/** POST /account/password. */
export async function changePassword(deps: OAuthDeps, request: FastifyRequest<{ Body: PasswordChangeBody }>, reply: FastifyReply) {
  const owner = currentResourceOwner(request);
  const user = await findUser(deps, owner.id);
  if (user === null) return renderError(reply, new NotFound(request.pageLanguage.t('error.noSuchUser')));
  const form = {
    current: request.body?.current ?? '',
    password: request.body?.password ?? '',
    confirmation: request.body?.confirmation ?? '',
  };
  const origin = attemptOrigin(request);
  const { address } = origin;
  const { t } = request.pageLanguage;
  const change = await changeOwnPassword(deps, user, form, { ...userActor(request, user.id), ...origin });
  switch (change.outcome) {
    case 'invalid':
      return renderAccountPage(deps, request, reply.code(422), { passwordErrors: change.errors });
    case 'wrong_password':
      request.log.info({ event: 'account.password_change_refused', userId: user.id, address }, 'password change: wrong current password');
      return renderAccountPage(deps, request, reply.code(401), { passwordErrors: { current: { problem: 'wrong' } } });
    case 'locked_out': {
      const passwordError = t('login.lockedOut', { seconds: change.retryAfter });
      return renderAccountPage(deps, request, reply.code(429).header('retry-after', String(change.retryAfter)), { passwordError });
    }
    case 'changed': {
      request.log.info({ event: 'account.password_changed', userId: user.id }, 'password changed by its user');
      // Whoever knew the old password may be signed in elsewhere: the form offers to end those sessions (ASVS 3.3.3).
      const others = request.body?.sign_out_others === '1' ? await endOtherSessionsOfUser(deps, owner.id, owner.loginSessionId) : [];
      for (const ended of others) await announceEndedSession(deps, request, ended, sessionEndedEvent(owner.id, request.ip, ended.id));
      const signedOut =
        others.length === 0
          ? ''
          : ` ${others.length === 1 ? t('account.otherSignedOut') : t('account.othersSignedOut', { count: others.length })}`;
      request.session.set('notice', `${t('account.passwordChanged')}${signedOut}`);
      return reply.redirect(ACCOUNT_PATH, 303);
    }
  }
}

/**
 * POST /account/sessions/:id/end: "Sign out this session". Another session of the user's: its row goes, so its
 * browser is signed out at its next request on any instance, and the clients it signed in to are told (back-channel
 * logout). The current one is a logout. Someone else's session, or none: 404, nothing changes.
 */
export async function endSession(deps: OAuthDeps, request: FastifyRequest<{ Params: { id: string } }>, reply: FastifyReply) {
  const owner = currentResourceOwner(request);
  const id = /^[1-9][0-9]{0,14}$/.test(request.params.id) ? Number(request.params.id) : null;
  if (id === owner.loginSessionId) {
    await endLoginSession(deps, request);
    request.session.set('notice', request.pageLanguage.t('logout.done'));
    return reply.redirect('/login', 303);
  }
  const ended = id === null ? null : await endSessionOfUser(deps, owner.id, id);
  const { t } = request.pageLanguage;
  if (ended === null) return renderError(reply, new NotFound(t('error.noSuchSession')), { href: ACCOUNT_PATH, text: t('account.back') });
  await announceEndedSession(deps, request, ended, sessionEndedEvent(owner.id, request.ip, ended.id));
  request.log.info({ event: 'account.session_ended', userId: owner.id, loginSession: ended.id }, 'a login session was ended by its user');
  request.session.set('notice', t('account.sessionEnded'));
  return reply.redirect(ACCOUNT_PATH, 303);
}

/**
 * POST /account/identities/remove: one of the user's own sign-in identities (issue 37). Another user's, or none: 404,
 * nothing changes. The only one of a user with no passkey stays (409, the page again saying why).
 */
export async function removeIdentity(
  deps: OAuthDeps,
  request: FastifyRequest<{ Body: IdentityKey & { password?: string } }>,
  reply: FastifyReply,
) {
  const owner = currentResourceOwner(request);
  const { t } = request.pageLanguage;
  const key = { issuer: request.body.issuer, subject: request.body.subject };
  const password = request.body.password ?? '';
  let passwordConfirmed = false;
  if (password !== '') {
    // As the password change does: a wrong password is a failed sign-in for the attempt limits.
    const check = await checkLoginCredentials(deps, owner.username, password, attemptOrigin(request));
    if (check.outcome === 'locked_out') {
      const identityError = t('login.lockedOut', { seconds: check.retryAfter });
      return renderAccountPage(deps, request, reply.code(429).header('retry-after', String(check.retryAfter)), { identityError });
    }
    if (check.outcome === 'failed' || check.user.id !== owner.id)
      return renderAccountPage(deps, request, reply.code(401), { identityError: t('identities.wrongPassword') });
    passwordConfirmed = true;
  }
  const removal = await removeUserIdentity(deps, userActor(request, owner.id), owner.id, key, { keepSignIn: true, passwordConfirmed });
  switch (removal.outcome) {
    case 'not_found':
      return renderError(reply, new NotFound(t('identities.notFound')), { href: ACCOUNT_PATH, text: t('account.back') });
    case 'last_sign_in':
      request.log.info(
        { event: 'account.identity_removal_refused', userId: owner.id },
        'identity removal refused: the last way to sign in',
      );
      return renderAccountPage(deps, request, reply.code(409), { identityError: t('identities.lastOneRefused') });
    case 'removed':
      request.log.info(
        { event: 'account.identity_removed', userId: owner.id, provider: removal.identity.providerId },
        'identity removed by its user',
      );
      request.session.set('notice', t('identities.removed', { provider: removal.identity.providerName }));
      return reply.redirect(ACCOUNT_PATH, 303);
  }
}
