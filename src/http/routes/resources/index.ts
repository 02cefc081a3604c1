import type { FastifyPluginAsync } from 'fastify';
import { authenticateAdmin } from '../../hooks/authenticate-admin.js';
import { noStore } from '../../no-store.js';
import type { AdminRouteOptions } from '../../route-options.js';
import { ResourcesController } from './controller.js';
import { resourcesErrorHandler } from './responses.js';
import { resourceRoutes } from './routes.js';
import { resourceJsonSchema } from './schemas.js';

/**
 * /oauth/resources: the admin's Resources section (issue 17), beside the applications and users and under the same
 * admin authentication. Encapsulated: the admin check, the error handler and the no-store header apply here only.
 */
export const resourcesRoutes: FastifyPluginAsync<AdminRouteOptions> = async (app, options) => {
  const { deps } = options;
  app.addSchema(resourceJsonSchema);
  app.setErrorHandler(resourcesErrorHandler(deps.config.realm));
  await app.register(authenticateAdmin, options);
  // Pages carry CSRF tokens: no cache keeps them.
  app.addHook('onSend', async (_request, reply, payload) => {
    noStore(reply, { pragma: false });
    return payload;
  });
  await app.register(resourceRoutes, { controller: new ResourcesController(deps, { metrics: app.metrics }) });
};
