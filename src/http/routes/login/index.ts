import { setTimeout as sleep } from 'node:timers/promises';
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { endLoginSession } from '../../end-login-session.js';
import { sessionUser } from '../../hooks/authenticate-resource-owner.js';
import { endUserErrorHandler, renderPage } from '../../hooks/end-user-pages.js';
import type { RouteOptions } from '../../route-options.js';
import { attemptOrigin } from '../../attempt-origin.js';
import { checkLoginCredentials } from '../../../oauth/users/users.js';
import { recordAuditEventAlone } from '../../../oauth/audit/audit-trail.js';
import { signInEvent } from '../../../oauth/audit/sign-in-events.js';
import { auditWriteFailed } from '../../audit-actor.js';
import { passkeyScriptTags } from '../../passkeys/passkey-scripts.js';
import { passkeysUsable, relyingParty } from '../../passkeys/relying-party.js';
import { afterLogin, finishSignIn } from '../../complete-sign-in.js';
import { secondStepNeeded } from '../../../oauth/second-factor/second-factors.js';
import { startSecondStep } from '../second-factor/second-step.js';
import { hintedUpstream, upstreamButtons } from './upstream-buttons.js';
import { upstreamLogoutTarget } from '../federation/upstream-logout-routes.js';

// Every failed attempt costs at least this long on top of argon2's own work, so guessing is slow even
// before the lockout starts.
const FAILURE_DELAY_MS = 300;

const loginBody = {
  type: 'object',
  properties: {
    username: { type: 'string', maxLength: 255, description: 'The user name.' },
    password: { type: 'string', maxLength: 1024, description: 'The password.' },
    _csrf: { type: 'string', description: 'CSRF token of the login form.' },
  },
} as const;

const csrfBody = { type: 'object', properties: { _csrf: { type: 'string', description: 'CSRF token of the form.' } } } as const;

interface LoginForm {
  username?: string;
  password?: string;
}

/** /login and /logout: local users; the login session is a row whose key is in the signed, encrypted cookie (SPEC 3.6). */
export const loginRoutes: FastifyPluginAsync<RouteOptions> = async (app, { deps }) => {
  app.setErrorHandler(endUserErrorHandler);

  const { localPasswords } = deps.config.authentication;
  const providers = upstreamButtons(deps.config.identityProviders);
  const loginPage = (request: FastifyRequest, reply: FastifyReply, model: { username?: string; error?: string } = {}) => {
    const username = model.username ?? request.session.get('loginHint') ?? '';
    return renderPage(request, reply, 'login.eta', {
      title: request.pageLanguage.t('login.title'),
      localPasswords,
      providers,
      username,
      error: model.error,
      // After an error the user name is kept: the password is what to type again.
      focus: Boolean(model.error) && username.trim() !== '' ? 'password' : 'username',
      csrfToken: reply.generateCsrf(),
      passkeyScripts: passkeysUsable(relyingParty(deps.config)) ? passkeyScriptTags() : [],
    });
  };

  app.get('/login', async (request, reply) => {
    if (request.session.get('reauthenticate') !== true && (await sessionUser(deps, request)) !== null) {
      const returnTo = afterLogin(request);
      request.session.set('returnTo', undefined);
      return reply.redirect(returnTo, 303);
    }
    const hinted = hintedUpstream(deps.config, request);
    if (hinted !== null) return reply.redirect(hinted, 303);
    return loginPage(request, reply);
  });

  app.post<{ Body: LoginForm }>('/login', { schema: { body: loginBody }, preHandler: app.csrfProtection }, async (request, reply) => {
    // A password sign-in is not mixed with an upstream one that never finished (finishSignIn would add its fed).
    request.session.set('upstreamSignIn', undefined);
    if (!localPasswords) {
      request.log.info({ event: 'login.refused', reason: 'local_passwords_off' }, 'password sign-in is turned off');
      return loginPage(request, reply.code(403), { error: request.pageLanguage.t('upstream.localPasswordsOff') });
    }
    const username = request.body?.username ?? '';
    const password = request.body?.password ?? '';
    if (username.trim() === '' || password === '') {
      return loginPage(request, reply.code(400), { username, error: request.pageLanguage.t('login.missingCredentials') });
    }
    const origin = attemptOrigin(request);
    const { address } = origin;
    const check = await checkLoginCredentials(deps, username, password, origin);
    const record = () =>
      recordAuditEventAlone(
        deps,
        signInEvent(check, username, request.ip),
        auditWriteFailed(() => request.log),
      );
    if (check.outcome === 'locked_out') {
      await record();
      request.log.info({ event: 'login.locked_out', address }, 'login refused: too many failures');
      const error = request.pageLanguage.t('login.lockedOut', { seconds: check.retryAfter });
      return loginPage(request, reply.code(429).header('retry-after', String(check.retryAfter)), { username, error });
    }
    if (check.outcome === 'failed') {
      await record();
      request.log.info({ event: 'login.failed', address }, 'login failed');
      await sleep(FAILURE_DELAY_MS);
      return loginPage(request, reply.code(401), { username, error: request.pageLanguage.t('login.failed') });
    }
    const { user } = check;
    // Not signed in yet while a second factor is owed (behaviour 3.19): the second step records the sign-in, if it comes.
    const returnTo = afterLogin(request);
    const requested = request.session.get('secondFactorWanted') === returnTo;
    const passkeyRequested = request.session.get('passkeyStepWanted') === returnTo;
    if (await secondStepNeeded(deps, user, requested, passkeyRequested)) return startSecondStep(deps, request, reply, user);
    await record();
    // RFC 8176: a password alone (the second step adds otp and raises the acr).
    return reply.redirect(await finishSignIn(deps, request, user, ['pwd']), 303);
  });

  app.get('/logout', async (request, reply) => {
    const user = await sessionUser(deps, request);
    if (!user) return reply.redirect('/login', 303);
    return renderPage(request, reply, 'logout.eta', {
      title: request.pageLanguage.t('logout.title'),
      username: user.username,
      csrfToken: reply.generateCsrf(),
    });
  });

  app.post('/logout', { schema: { body: csrfBody }, preHandler: app.csrfProtection }, async (request, reply) => {
    // Issue 37: a session started at an upstream with endUpstreamSession ends there too (read before it ends here).
    const upstream = await upstreamLogoutTarget(deps, request);
    await endLoginSession(deps, request);
    request.session.set('notice', request.pageLanguage.t('logout.done'));
    return reply.redirect(upstream ?? '/login', 303);
  });
};
