import type { FastifyPluginAsync } from 'fastify';
import { authenticateAdmin } from '../../hooks/authenticate-admin.js';
import { noStore } from '../../no-store.js';
import type { AdminRouteOptions } from '../../route-options.js';
import { readRoutes } from './read-routes.js';
import { adminErrorHandler } from './responses.js';
import { applicationJsonSchema } from './schemas.js';
import { writeRoutes } from './write-routes.js';

/**
 * /oauth/applications: the admin's pages and JSON API (SPEC 3.6, reference 13 and 15.6 to 15.8). Encapsulated:
 * the admin authentication, the error handler and the no-store header apply to these routes only.
 */
export const applicationsRoutes: FastifyPluginAsync<AdminRouteOptions> = async (app, options) => {
  const { deps, controllers } = options;
  app.addSchema(applicationJsonSchema);
  app.setErrorHandler(adminErrorHandler(deps.config.realm));
  await app.register(authenticateAdmin, options);
  // Pages carry CSRF tokens and sometimes a plain secret; JSON may carry a secret: no cache keeps any of it.
  app.addHook('onSend', async (_request, reply, payload) => {
    noStore(reply, { pragma: false });
    return payload;
  });
  // The actions of the `applications` controller (SPEC 7).
  await app.register(readRoutes, { deps, controllers });
  await app.register(writeRoutes, { deps, controllers });
};
