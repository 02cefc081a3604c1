import type { FastifyReply, FastifyRequest } from 'fastify';
import { NotFound } from '../../../oauth/errors.js';
import { adminPageRenderer, sectionErrorHandler, sendAdminError } from '../applications/responses.js';

// How the Resources section answers: pages in the layout (JSON for scripts, as the applications do), and the
// admin group's error pages.

export const RESOURCE_NOT_FOUND = 'There is no resource with this id.';

export const renderResourcesPage = adminPageRenderer('resources');

export function resourceNotFound(request: FastifyRequest, reply: FastifyReply): FastifyReply {
  return sendAdminError(request, reply, new NotFound(RESOURCE_NOT_FOUND));
}

export const resourcesErrorHandler = (realm: string) => sectionErrorHandler(realm, RESOURCE_NOT_FOUND);
