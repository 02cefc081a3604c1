import type { FastifyReply, FastifyRequest } from 'fastify';
import { NotFound } from '../../../oauth/errors.js';
import { adminPageRenderer, sectionErrorHandler, sendAdminError } from '../applications/responses.js';

// How the Users section answers: HTML pages in the layout, and the admin group's error pages.

export const USER_NOT_FOUND = 'There is no user with this id.';

export const renderUsersPage = adminPageRenderer('users');

export function userNotFound(request: FastifyRequest, reply: FastifyReply): FastifyReply {
  return sendAdminError(request, reply, new NotFound(USER_NOT_FOUND));
}

export function identityNotFound(request: FastifyRequest, reply: FastifyReply): FastifyReply {
  return sendAdminError(request, reply, new NotFound('This user has no such identity.'));
}

export const usersErrorHandler = (realm: string) => sectionErrorHandler(realm, USER_NOT_FOUND);
