import type { FastifyPluginAsync } from 'fastify';
import { authenticateAdmin } from '../../hooks/authenticate-admin.js';
import { noStore } from '../../no-store.js';
import type { AdminRouteOptions } from '../../route-options.js';
import { UsersController } from './controller.js';
import { usersErrorHandler } from './responses.js';
import { userRoutes } from './routes.js';

/**
 * /oauth/users: the admin's Users section (issue 16), beside the applications and under the same admin
 * authentication. Encapsulated: the admin check, the error handler and the no-store header apply here only.
 */
export const usersRoutes: FastifyPluginAsync<AdminRouteOptions> = async (app, options) => {
  const { deps } = options;
  app.setErrorHandler(usersErrorHandler(deps.config.realm));
  await app.register(authenticateAdmin, options);
  // Pages carry CSRF tokens and personal data: no cache keeps any of it.
  app.addHook('onSend', async (_request, reply, payload) => {
    noStore(reply, { pragma: false });
    return payload;
  });
  await app.register(userRoutes, { controller: new UsersController(deps, { metrics: app.metrics }) });
};
