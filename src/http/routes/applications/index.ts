import type { FastifyPluginAsync } from 'fastify';
import type { AdminRouteOptions } from '../../route-options.js';

// Not built yet: this endpoint group is registered so app.ts lists every group from the start.
export const applicationsRoutes: FastifyPluginAsync<AdminRouteOptions> = async () => undefined;
