import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { NotFound, type OAuthError } from '../../../oauth/errors.js';
import { adminErrorHandler, sendAdminError } from '../applications/responses.js';

// How the Users section answers: HTML pages in the layout, and the admin group's error pages.

export const USER_NOT_FOUND = 'There is no user with this id.';

/** A page of views/users inside the layout, with the one-time notice and a CSRF token for its forms. */
export function renderUsersPage(request: FastifyRequest, reply: FastifyReply, template: string, model: object): FastifyReply {
  const notice = request.session.get('notice');
  if (notice !== undefined) request.session.set('notice', undefined);
  return reply.view(`users/${template}`, { ...model, notice, csrfToken: reply.generateCsrf() });
}

export function userNotFound(request: FastifyRequest, reply: FastifyReply): FastifyReply {
  return sendAdminError(request, reply, new NotFound(USER_NOT_FOUND));
}

/** The applications' admin error handler (the same refusals, pages and logging), in the users' words for a bad id. */
export function usersErrorHandler(realm: string) {
  const handle = adminErrorHandler(realm);
  return function usersError(error: FastifyError | OAuthError, request: FastifyRequest, reply: FastifyReply): FastifyReply {
    if ('validation' in error && error.validation && error.validationContext === 'params') return userNotFound(request, reply);
    return handle(error, request, reply);
  };
}
