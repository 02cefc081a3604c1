import type { FastifyPluginAsync } from 'fastify';
import type { ApplicationListFilter } from '../../../oauth/clients/applications.js';
import type { ApplicationRoute } from './controller.js';
import type { RouteOptions } from '../../route-options.js';
import { idParams, indexQuery, responses } from './schemas.js';
import { INDEX_PATH } from './view-models.js';
import { refuseHead } from '../../refuse-head.js';

/**
 * The admin's GET routes: `index`, `show` (HTML and JSON), and the `new`, `edit`, `confirmDestroy` and
 * `confirmRotateSecret` pages.
 */
export const readRoutes: FastifyPluginAsync<RouteOptions> = async (app, { controllers }) => {
  const controller = controllers.applications;
  const byId = { params: idParams, response: responses.page };

  app.get<{ Querystring: { filter?: ApplicationListFilter } }>(
    INDEX_PATH,
    { schema: { querystring: indexQuery, response: responses.index } },
    (request, reply) => controller.index(request, reply),
  );
  app.get(`${INDEX_PATH}/new`, { schema: { response: responses.page } }, (request, reply) => controller.new(request, reply));
  // It shows a new secret once (secret-once.ts): a HEAD would use that up.
  app.get<ApplicationRoute>(
    `${INDEX_PATH}/:id`,
    { schema: { params: idParams, response: responses.show }, exposeHeadRoute: false },
    (request, reply) => controller.show(request, reply),
  );
  refuseHead(app, `${INDEX_PATH}/:id`, ['GET', 'POST', 'PUT', 'PATCH', 'DELETE']);
  app.get<ApplicationRoute>(`${INDEX_PATH}/:id/edit`, { schema: byId }, (request, reply) => controller.edit(request, reply));
  app.get<ApplicationRoute>(`${INDEX_PATH}/:id/delete`, { schema: byId }, (request, reply) => controller.confirmDestroy(request, reply));
  app.get<ApplicationRoute>(`${INDEX_PATH}/:id/rotate_secret`, { schema: byId }, (request, reply) =>
    controller.confirmRotateSecret(request, reply),
  );
};
