import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import type { ApplicationRecord } from '../../../oauth/store.js';
import { authenticateResourceOwner, currentResourceOwner } from '../../hooks/authenticate-resource-owner.js';
import { endUserErrorHandler, renderErrorPage, renderPage } from '../../hooks/end-user-pages.js';
import type { RouteOptions } from '../../route-options.js';

const INDEX_PATH = '/oauth/authorized_applications';

const idParams = { type: 'object', properties: { id: { type: 'string', description: 'The application id.' } }, required: ['id'] } as const;
const revokeBody = {
  type: 'object',
  properties: {
    _csrf: { description: 'CSRF token of the Revoke form (or the X-CSRF-Token header).' },
    _method: { description: 'POST: must be "delete" (HTML forms cannot send DELETE).' },
  },
} as const;

const listItem = {
  type: 'object',
  properties: { id: { type: 'integer' }, name: { type: 'string' }, uid: { type: 'string' }, created_at: { type: 'string' } },
  required: ['id', 'name', 'created_at'],
} as const;

/** /oauth/authorized_applications: the owner's authorized applications, and revoking one (SPEC 3.6, reference 14). */
export const authorizedApplicationsRoutes: FastifyPluginAsync<RouteOptions> = async (app, { deps }) => {
  app.setErrorHandler(endUserErrorHandler);
  const authenticate = authenticateResourceOwner(deps);

  app.get(INDEX_PATH, { schema: { response: { 200: { type: 'array', items: listItem } } }, preHandler: authenticate }, async (request, reply) => {
    const owner = currentResourceOwner(request);
    const authorized = await deps.stores.accessTokens.authorizedApplications({
      resourceOwnerId: owner.id,
      at: deps.now(),
      refreshTokenExpiresIn: deps.config.refreshTokens.expiresIn,
    });
    if (wantsJson(request)) return reply.header('cache-control', 'no-store').send(authorized.map(({ application }) => publicAttributes(application)));
    return renderPage(request, reply, 'authorized-applications.eta', {
      title: 'Your authorized applications',
      applications: authorized.map(({ application, authorizedAt }) => ({
        id: application.id,
        name: application.name,
        authorizedAt: `${authorizedAt.toISOString().slice(0, 19).replace('T', ' ')} UTC`,
        authorizedAtIso: authorizedAt.toISOString(),
      })),
      username: owner.username,
      csrfToken: reply.generateCsrf(),
    });
  });

  const revoke = async (request: FastifyRequest<{ Params: { id: string } }>, reply: FastifyReply) => {
    const owner = currentResourceOwner(request);
    const applicationId = /^[1-9][0-9]{0,14}$/.test(request.params.id) ? Number(request.params.id) : null;
    if (applicationId === null) return notFound(request, reply);
    const now = deps.now();
    // Reference 14: every token and grant of this owner for the application; an unknown id changes nothing.
    const revoked = await deps.stores.transaction(async (stores) => ({
      tokens: await stores.accessTokens.revokeAllFor(applicationId, owner.id, now),
      grants: await stores.accessGrants.revokeAllFor(applicationId, owner.id, now),
    }));
    request.log.info({ event: 'token.revoked', applicationId, resourceOwnerId: owner.id, ...revoked }, 'application authorization revoked');
    if (wantsJson(request)) return reply.code(204).send();
    request.session.set('notice', 'Application revoked.');
    // 303 after a real DELETE, so the browser does not repeat the DELETE on the index.
    return reply.redirect(INDEX_PATH, request.method === 'DELETE' ? 303 : 302);
  };

  const csrf = app.csrfProtection;
  // No body schema: a DELETE usually has no body (its CSRF token comes in X-CSRF-Token).
  app.delete<{ Params: { id: string } }>(`${INDEX_PATH}/:id`, { schema: { params: idParams }, preHandler: [authenticate, csrf] }, revoke);
  app.post<{ Params: { id: string }; Body: { _method?: unknown } }>(
    `${INDEX_PATH}/:id`,
    { schema: { params: idParams, body: revokeBody }, preHandler: [authenticate, csrf] },
    async (request, reply) => {
      const method = request.body?._method;
      if (typeof method !== 'string' || method.toLowerCase() !== 'delete') return renderErrorPage(reply, 405, 'Send _method=delete to revoke an application.');
      return revoke(request, reply);
    },
  );
};

// Reference 14: id, name, created_at, and the uid only of public clients (a confidential client's uid is
// not the user's business).
function publicAttributes(application: ApplicationRecord) {
  return {
    id: application.id,
    name: application.name,
    ...(!application.confidential && { uid: application.uid }),
    created_at: application.createdAt.toISOString(),
  };
}

function wantsJson(request: FastifyRequest): boolean {
  const accept = request.headers.accept ?? '';
  return accept.includes('application/json') && !accept.includes('text/html');
}

function notFound(request: FastifyRequest, reply: FastifyReply): FastifyReply {
  if (wantsJson(request)) return reply.code(404).send({ error: 'not_found', error_description: 'No such application.' });
  return renderErrorPage(reply, 404, 'No such application.');
}
