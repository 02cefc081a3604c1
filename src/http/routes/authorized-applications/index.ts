import type { FastifyPluginAsync } from 'fastify';
import { authenticateResourceOwner } from '../../hooks/authenticate-resource-owner.js';
import { MethodNotAllowed } from '../../../oauth/errors.js';
import { endUserErrorHandler, renderError } from '../../hooks/end-user-pages.js';
import type { RouteOptions } from '../../route-options.js';
import { AUTHORIZED_APPLICATIONS_PATH as INDEX_PATH } from './controller.js';

const idParams = { type: 'object', properties: { id: { type: 'string', description: 'The application id.' } }, required: ['id'] } as const;
const revokeBody = {
  type: 'object',
  properties: {
    _csrf: { description: 'CSRF token of the Revoke form (or the X-CSRF-Token header).' },
    _method: { description: 'POST: must be "delete" (HTML forms cannot send DELETE).' },
  },
} as const;

const listItem = {
  type: 'object',
  properties: { id: { type: 'integer' }, name: { type: 'string' }, uid: { type: 'string' }, created_at: { type: 'string' } },
  required: ['id', 'name', 'created_at'],
} as const;

type IdRoute = { Params: { id: string } };

/**
 * /oauth/authorized_applications (SPEC 3.6, reference 14): the actions of the `authorized_applications`
 * controller, `index` (the owner's authorized applications) and `destroy` (revoke one).
 */
export const authorizedApplicationsRoutes: FastifyPluginAsync<RouteOptions> = async (app, { deps, controllers }) => {
  app.setErrorHandler(endUserErrorHandler);
  const authenticate = authenticateResourceOwner(deps);
  const controller = controllers.authorized_applications;

  app.get(INDEX_PATH, { schema: { response: { 200: { type: 'array', items: listItem } } }, preHandler: authenticate }, (request, reply) =>
    controller.index(request, reply),
  );

  const csrf = app.csrfProtection;
  // No body schema: a DELETE usually has no body (its CSRF token comes in X-CSRF-Token).
  app.delete<IdRoute>(`${INDEX_PATH}/:id`, { schema: { params: idParams }, preHandler: [authenticate, csrf] }, (request, reply) =>
    controller.destroy(request, reply),
  );
  // HTML forms can only POST: the Revoke button posts _method=delete.
  app.post<IdRoute & { Body: { _method?: unknown } }>(
    `${INDEX_PATH}/:id`,
    { schema: { params: idParams, body: revokeBody }, preHandler: [authenticate, csrf] },
    async (request, reply) => {
      const method = request.body?._method;
      if (typeof method !== 'string' || method.toLowerCase() !== 'delete')
        return renderError(reply, new MethodNotAllowed('Send _method=delete to revoke an application.'));
      return controller.destroy(request, reply);
    },
  );
};
