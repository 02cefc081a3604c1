import type { FastifyPluginAsync } from 'fastify';
import { authenticateResourceOwner } from '../../hooks/authenticate-resource-owner.js';
import { endUserErrorHandler } from '../../hooks/end-user-pages.js';
import type { RouteOptions } from '../../route-options.js';
import type { IdentityKey } from '../../../oauth/users/user-identity-store.js';
import { REMOVE_IDENTITY_PATH } from './account-identities.js';
import { ACCOUNT_PATH, changePassword, endSession, removeIdentity, renderAccountPage, type PasswordChangeBody } from './account-page.js';

const password = (description: string) => ({ type: 'string', maxLength: 1024, description }) as const;
const passwordBody = {
  type: 'object',
  properties: {
    current: password('The current password.'),
    password: password('The new password.'),
    confirmation: password('The new password again.'),
    sign_out_others: { type: 'string', maxLength: 1, description: '"1": end the other sessions of the user once the password changed.' },
    _csrf: { type: 'string', description: 'CSRF token of the form.' },
  },
} as const;
const csrfBody = { type: 'object', properties: { _csrf: { type: 'string', description: 'CSRF token of the form.' } } } as const;
// An identity is named by its key (the hidden fields of its Remove form): free text, bounded, never a control character.
const identityField = (description: string) =>
  ({ type: 'string', minLength: 1, maxLength: 2048, pattern: '^[^\\u0000-\\u001f\\u007f]+$', description }) as const;
const identityBody = {
  type: 'object',
  required: ['issuer', 'subject'],
  properties: {
    issuer: identityField("The identity's issuer."),
    subject: identityField("The identity's subject at that issuer."),
    password: {
      type: 'string',
      maxLength: 1024,
      description: "The user's password: needed to remove the only identity of a user without a passkey.",
    },
    _csrf: { type: 'string', description: 'CSRF token of the form.' },
  },
} as const;
const idParams = {
  type: 'object',
  properties: { id: { type: 'string', description: 'The login session (its number on the page).' } },
  required: ['id'],
} as const;

/**
 * /account (issue 35 item 5): the signed-in user's own page: password change, sessions on every device, and the
 * removal of a sign-in identity (issue 37).
 */
export const accountRoutes: FastifyPluginAsync<RouteOptions> = async (app, { deps }) => {
  app.setErrorHandler(endUserErrorHandler);
  const authenticate = authenticateResourceOwner(deps);
  const csrf = app.csrfProtection;

  app.get(ACCOUNT_PATH, { preHandler: authenticate }, (request, reply) => renderAccountPage(deps, request, reply));
  app.post<{ Body: PasswordChangeBody }>(
    `${ACCOUNT_PATH}/password`,
    { schema: { body: passwordBody }, preHandler: [authenticate, csrf] },
    (request, reply) => changePassword(deps, request, reply),
  );
  app.post<{ Params: { id: string } }>(
    `${ACCOUNT_PATH}/sessions/:id/end`,
    { schema: { params: idParams, body: csrfBody }, preHandler: [authenticate, csrf] },
    (request, reply) => endSession(deps, request, reply),
  );
  app.post<{ Body: IdentityKey & { password?: string } }>(
    REMOVE_IDENTITY_PATH,
    { schema: { body: identityBody }, preHandler: [authenticate, csrf] },
    (request, reply) => removeIdentity(deps, request, reply),
  );
};
