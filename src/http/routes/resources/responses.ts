import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { NotFound, type OAuthError } from '../../../oauth/errors.js';
import { adminErrorHandler, sendAdminError } from '../applications/responses.js';

// How the Resources section answers: pages in the layout (JSON for scripts, as the applications do), and the
// admin group's error pages.

export const RESOURCE_NOT_FOUND = 'There is no resource with this id.';

/** A page of views/resources inside the layout, with the one-time notice and a CSRF token for its forms. */
export function renderResourcesPage(request: FastifyRequest, reply: FastifyReply, template: string, model: object): FastifyReply {
  const notice = request.session.get('notice');
  if (notice !== undefined) request.session.set('notice', undefined);
  return reply.view(`resources/${template}`, { ...model, notice, csrfToken: reply.generateCsrf() });
}

export function resourceNotFound(request: FastifyRequest, reply: FastifyReply): FastifyReply {
  return sendAdminError(request, reply, new NotFound(RESOURCE_NOT_FOUND));
}

/** The applications' admin error handler (the same refusals, pages and logging), in the resources' words for a bad id. */
export function resourcesErrorHandler(realm: string) {
  const handle = adminErrorHandler(realm);
  return function resourcesError(error: FastifyError | OAuthError, request: FastifyRequest, reply: FastifyReply): FastifyReply {
    if ('validation' in error && error.validation && error.validationContext === 'params') return resourceNotFound(request, reply);
    return handle(error, request, reply);
  };
}
