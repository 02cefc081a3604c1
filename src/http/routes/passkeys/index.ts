import type { AuthenticationResponseJSON } from '@simplewebauthn/server';
import type { FastifyPluginAsync } from 'fastify';
import { authenticateResourceOwner } from '../../hooks/authenticate-resource-owner.js';
import { endUserErrorHandler } from '../../hooks/end-user-pages.js';
import { passkeyScripts } from '../../passkeys/passkey-scripts.js';
import type { RouteOptions } from '../../route-options.js';
import {
  finishRegistration,
  PASSKEY_WITHOUT_JAVASCRIPT_PATH,
  passkeyNeedsJavaScript,
  startRegistration,
  type RegistrationBody,
} from './account-passkeys.js';
import { removeOwnPasskey, renameOwnPasskey } from './account-passkey-forms.js';
import { finishPasskeySignIn, startPasskeySignIn } from './passkey-login.js';
import { emptyBody, registrationBody, registrationOptionsBody, signInBody } from './passkey-schemas.js';
import { finishLinkPasskey, LINK_PASSKEY_PATH, startLinkPasskey } from '../federation/upstream-link-passkey.js';
import { finishPasskeySecondStep, PASSKEY_SECOND_STEP_PATH, startPasskeySecondStep } from './passkey-second-step.js';

const idParams = {
  type: 'object',
  properties: { id: { type: 'string', description: 'The passkey (its number on the page).' } },
  required: ['id'],
} as const;
const renameBody = {
  type: 'object',
  properties: {
    name: { type: 'string', maxLength: 256, description: 'The new name.' },
    _csrf: { type: 'string', description: 'CSRF token of the form.' },
  },
} as const;
const csrfBody = { type: 'object', properties: { _csrf: { type: 'string', description: 'CSRF token of the form.' } } } as const;

/**
 * Passkeys (issue 35 item 1): /account/passkeys/* (register, rename, remove: the signed-in user's own; the registration
 * form without JavaScript is told what it needs),
 * /login/passkey/* (sign in with one alone), /login/second-factor/passkey/* (one as the second step after a password),
 * /login/upstream/link/passkey/* (one as the proof of the account an upstream identity is linked to, issue 37),
 * and the two scripts their pages load. JSON endpoints keep the app's
 * JSON error handler; the HTML forms answer errors as pages.
 */
export const passkeyRoutes: FastifyPluginAsync<RouteOptions> = async (app, { deps }) => {
  const authenticate = authenticateResourceOwner(deps);
  const csrf = app.csrfProtection;

  for (const script of passkeyScripts()) {
    app.get(script.src, async (_request, reply) =>
      reply.header('content-type', 'text/javascript; charset=utf-8').header('cache-control', 'public, max-age=3600').send(script.body),
    );
  }

  app.post<{ Body: { current?: string } }>(
    '/account/passkeys/options',
    { schema: { body: registrationOptionsBody }, preHandler: [authenticate, csrf] },
    (request, reply) => startRegistration(deps, request, reply),
  );
  app.post<{ Body: RegistrationBody }>(
    '/account/passkeys',
    { schema: { body: registrationBody }, preHandler: [authenticate, csrf] },
    (request, reply) => finishRegistration(deps, request, reply),
  );
  app.post(
    PASSKEY_WITHOUT_JAVASCRIPT_PATH,
    { schema: { body: csrfBody }, preHandler: [authenticate, csrf], errorHandler: endUserErrorHandler },
    (request, reply) => passkeyNeedsJavaScript(request, reply),
  );
  app.post<{ Params: { id: string }; Body: { name?: string } }>(
    '/account/passkeys/:id/rename',
    { schema: { params: idParams, body: renameBody }, preHandler: [authenticate, csrf], errorHandler: endUserErrorHandler },
    (request, reply) => renameOwnPasskey(deps, request, reply),
  );
  app.post<{ Params: { id: string }; Body: unknown }>(
    '/account/passkeys/:id/remove',
    { schema: { params: idParams, body: csrfBody }, preHandler: [authenticate, csrf], errorHandler: endUserErrorHandler },
    (request, reply) => removeOwnPasskey(deps, request, reply),
  );

  app.post('/login/passkey/options', { schema: { body: emptyBody }, preHandler: csrf }, (request, reply) =>
    startPasskeySignIn(deps, request, reply),
  );
  app.post<{ Body: { response: AuthenticationResponseJSON } }>(
    '/login/passkey',
    { schema: { body: signInBody }, preHandler: csrf },
    (request, reply) => finishPasskeySignIn(deps, request, reply),
  );

  app.post(`${LINK_PASSKEY_PATH}/options`, { schema: { body: emptyBody }, preHandler: csrf }, (request, reply) =>
    startLinkPasskey(deps, request, reply),
  );
  app.post<{ Body: { response: AuthenticationResponseJSON } }>(
    LINK_PASSKEY_PATH,
    { schema: { body: signInBody }, preHandler: csrf },
    (request, reply) => finishLinkPasskey(deps, request, reply),
  );

  app.post(`${PASSKEY_SECOND_STEP_PATH}/options`, { schema: { body: emptyBody }, preHandler: csrf }, (request, reply) =>
    startPasskeySecondStep(deps, request, reply),
  );
  app.post<{ Body: { response: AuthenticationResponseJSON } }>(
    PASSKEY_SECOND_STEP_PATH,
    { schema: { body: signInBody }, preHandler: csrf },
    (request, reply) => finishPasskeySecondStep(deps, request, reply),
  );
};
