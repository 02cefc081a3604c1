import type { FastifyPluginAsync } from 'fastify';
import { requireCsrfToken } from '../applications/csrf.js';
import type { ResourceRoute, ResourcesController } from './controller.js';
import type { ResourceBody } from './request-fields.js';
import { idParams, methodOverrideBody, methodOverrideResponses, resourceBody, responses } from './schemas.js';
import { INDEX_PATH } from './view-models.js';

/**
 * The Resources section's routes. Every write checks the form's CSRF token before its body is even validated,
 * except a script's JSON call, which no other site can make a browser send (applications/csrf.ts says why).
 */
export const resourceRoutes: FastifyPluginAsync<{ controller: ResourcesController }> = async (app, { controller }) => {
  const csrf = requireCsrfToken(app);
  const byId = { params: idParams, response: responses.page };

  app.get(INDEX_PATH, { schema: { response: responses.index } }, (request, reply) => controller.index(request, reply));
  app.get(`${INDEX_PATH}/new`, { schema: { response: responses.page } }, (request, reply) => controller.new(request, reply));
  app.get<ResourceRoute>(`${INDEX_PATH}/:id`, { schema: { params: idParams, response: responses.show } }, (request, reply) =>
    controller.show(request, reply),
  );
  app.get<ResourceRoute>(`${INDEX_PATH}/:id/edit`, { schema: byId }, (request, reply) => controller.edit(request, reply));
  app.get<ResourceRoute>(`${INDEX_PATH}/:id/delete`, { schema: byId }, (request, reply) => controller.confirmDestroy(request, reply));

  app.post<{ Body: ResourceBody | undefined }>(
    INDEX_PATH,
    { schema: { body: resourceBody, response: responses.create }, preValidation: csrf },
    (request, reply) => controller.create(request, reply),
  );
  const updateSchema = { params: idParams, body: resourceBody, response: responses.update };
  app.patch<ResourceRoute>(`${INDEX_PATH}/:id`, { schema: updateSchema, preValidation: csrf }, (request, reply) =>
    controller.update(request, reply),
  );
  app.put<ResourceRoute>(`${INDEX_PATH}/:id`, { schema: updateSchema, preValidation: csrf }, (request, reply) =>
    controller.update(request, reply),
  );
  app.delete<ResourceRoute>(
    `${INDEX_PATH}/:id`,
    { schema: { params: idParams, response: responses.destroy }, preValidation: csrf },
    (request, reply) => controller.destroy(request, reply),
  );
  // HTML forms can only POST: the edit and delete forms send _method=patch or _method=delete.
  app.post<ResourceRoute>(
    `${INDEX_PATH}/:id`,
    { schema: { params: idParams, body: methodOverrideBody, response: methodOverrideResponses }, preValidation: csrf },
    (request, reply) =>
      request.body?._method?.toLowerCase() === 'delete' ? controller.destroy(request, reply) : controller.update(request, reply),
  );
};
