import type { AuthenticationResponseJSON } from '@simplewebauthn/server';
import type { FastifyPluginAsync } from 'fastify';
import { authenticateResourceOwner } from '../../hooks/authenticate-resource-owner.js';
import { endUserErrorHandler } from '../../hooks/end-user-pages.js';
import { passkeyScripts } from '../../passkeys/passkey-scripts.js';
import type { RouteOptions } from '../../route-options.js';
import { finishRegistration, removeOwnPasskey, renameOwnPasskey, startRegistration, type RegistrationBody } from './account-passkeys.js';
import { finishPasskeySignIn, startPasskeySignIn } from './passkey-login.js';
import { finishPasskeySecondStep, PASSKEY_SECOND_STEP_PATH, startPasskeySecondStep } from './passkey-second-step.js';

// The WebAuthn JSON as the browser's PublicKeyCredential.toJSON() (and @simplewebauthn/browser) sends it: the fields
// the server reads are required strings of bounded size; the library checks their contents.
const b64url = (description: string, maxLength = 16384) =>
  ({ type: 'string', pattern: '^[A-Za-z0-9_-]*$', maxLength, description }) as const;
const credentialFields = {
  id: b64url('The credential id.', 1024),
  rawId: b64url('The credential id again.', 1024),
  type: { type: 'string', const: 'public-key', description: 'Always public-key.' },
  clientExtensionResults: { type: 'object', description: 'Client extension outputs.' },
  authenticatorAttachment: { type: 'string', maxLength: 32, description: 'platform or cross-platform.' },
} as const;
const credential = (response: object, description: string) =>
  ({ type: 'object', required: ['id', 'rawId', 'type', 'response'], properties: { ...credentialFields, response }, description }) as const;

const registrationBody = {
  type: 'object',
  required: ['name', 'response'],
  properties: {
    name: { type: 'string', maxLength: 256, description: 'The name the user gives the passkey.' },
    response: credential(
      {
        type: 'object',
        required: ['clientDataJSON', 'attestationObject'],
        properties: {
          clientDataJSON: b64url('The client data.'),
          attestationObject: b64url('The attestation object.'),
          transports: { type: 'array', maxItems: 8, items: { type: 'string', maxLength: 32 }, description: 'The transports.' },
        },
      },
      'The new credential (navigator.credentials.create()).',
    ),
  },
} as const;
const signInBody = {
  type: 'object',
  required: ['response'],
  properties: {
    response: credential(
      {
        type: 'object',
        required: ['clientDataJSON', 'authenticatorData', 'signature'],
        properties: {
          clientDataJSON: b64url('The client data.'),
          authenticatorData: b64url('The authenticator data.'),
          signature: b64url('The signature.', 1024),
          userHandle: b64url('The user handle.', 1024),
        },
      },
      'The assertion (navigator.credentials.get()).',
    ),
  },
} as const;
const emptyBody = { type: 'object', description: 'Nothing: the CSRF token is in the x-csrf-token header.' } as const;
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
 * Passkeys (issue 35 item 1): /account/passkeys/* (register, rename, remove: the signed-in user's own),
 * /login/passkey/* (sign in with one alone), /login/second-factor/passkey/* (one as the second step after a password),
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

  app.post('/account/passkeys/options', { schema: { body: emptyBody }, preHandler: [authenticate, csrf] }, (request, reply) =>
    startRegistration(deps, request, reply),
  );
  app.post<{ Body: RegistrationBody }>(
    '/account/passkeys',
    { schema: { body: registrationBody }, preHandler: [authenticate, csrf] },
    (request, reply) => finishRegistration(deps, request, reply),
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

  app.post(`${PASSKEY_SECOND_STEP_PATH}/options`, { schema: { body: emptyBody }, preHandler: csrf }, (request, reply) =>
    startPasskeySecondStep(deps, request, reply),
  );
  app.post<{ Body: { response: AuthenticationResponseJSON } }>(
    PASSKEY_SECOND_STEP_PATH,
    { schema: { body: signInBody }, preHandler: csrf },
    (request, reply) => finishPasskeySecondStep(deps, request, reply),
  );
};
