import type { FastifyPluginAsync } from 'fastify';
import type { RouteOptions } from '../../route-options.js';

// Not built yet: this endpoint group is registered so app.ts lists every group from the start.
export const authorizeRoutes: FastifyPluginAsync<RouteOptions> = async () => undefined;
