import type { FastifyPluginAsync } from 'fastify';
import type { ApplicationRoute } from './controller.js';
import type { ApplicationBody } from './request-fields.js';
import type { RouteOptions } from '../../route-options.js';
import { requireCsrfToken } from './csrf.js';
import { applicationBody, approveBody, csrfOnlyBody, idParams, methodOverrideBody, methodOverrideResponses, responses } from './schemas.js';
import { INDEX_PATH } from './view-models.js';

/**
 * The admin's state-changing routes: `create`, `update`, `destroy` and `rotateSecret` (reference 13; SPEC 3.6), and
 * `approve`, `disable` and `enable` (issue 19).
 */
export const writeRoutes: FastifyPluginAsync<RouteOptions> = async (app, { controllers }) => {
  const controller = controllers.applications;
  const csrf = requireCsrfToken(app);

  app.post<{ Body: ApplicationBody | undefined }>(
    INDEX_PATH,
    { schema: { body: applicationBody, response: responses.create }, preValidation: csrf },
    (request, reply) => controller.create(request, reply),
  );

  const updateSchema = { params: idParams, body: applicationBody, response: responses.update };
  app.patch<ApplicationRoute>(`${INDEX_PATH}/:id`, { schema: updateSchema, preValidation: csrf }, (request, reply) =>
    controller.update(request, reply),
  );
  app.put<ApplicationRoute>(`${INDEX_PATH}/:id`, { schema: updateSchema, preValidation: csrf }, (request, reply) =>
    controller.update(request, reply),
  );
  app.delete<ApplicationRoute>(
    `${INDEX_PATH}/:id`,
    { schema: { params: idParams, response: responses.destroy }, preValidation: csrf },
    (request, reply) => controller.destroy(request, reply),
  );

  // HTML forms can only GET and POST: the edit and delete forms POST with _method=patch or _method=delete.
  app.post<ApplicationRoute>(
    `${INDEX_PATH}/:id`,
    { schema: { params: idParams, body: methodOverrideBody, response: methodOverrideResponses }, preValidation: csrf },
    (request, reply) =>
      request.body?._method?.toLowerCase() === 'delete' ? controller.destroy(request, reply) : controller.update(request, reply),
  );

  app.post<ApplicationRoute>(
    `${INDEX_PATH}/:id/rotate_secret`,
    { schema: { params: idParams, body: csrfOnlyBody, response: responses.rotate }, preValidation: csrf },
    (request, reply) => controller.rotateSecret(request, reply),
  );

  // Issue 19: the state of a client, self-registered or not. Scripts POST `{}` as JSON, like rotate_secret.
  const action = { schema: { params: idParams, body: csrfOnlyBody, response: responses.action }, preValidation: csrf };
  const approve = { ...action, schema: { ...action.schema, body: approveBody } };
  app.post<ApplicationRoute>(`${INDEX_PATH}/:id/approve`, approve, (request, reply) => controller.approve(request, reply));
  app.post<ApplicationRoute>(`${INDEX_PATH}/:id/disable`, action, (request, reply) => controller.disable(request, reply));
  app.post<ApplicationRoute>(`${INDEX_PATH}/:id/enable`, action, (request, reply) => controller.enable(request, reply));
};
