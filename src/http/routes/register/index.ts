import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import {
  authorizeManagement,
  authorizeRegistration,
  deleteClient,
  readClient,
  registerClient,
  updateClient,
} from '../../../oauth/clients/registration/client-registration.js';
import { UnsupportedMediaType } from '../../../oauth/errors.js';
import { recordAuditEventAlone, type AuditActor } from '../../../oauth/audit/audit-trail.js';
import type { AuditEventType } from '../../../oauth/audit/audit-event-types.js';
import { clientEvent } from '../../../oauth/audit/audit-subjects.js';
import type { ApplicationRecord } from '../../../oauth/store.js';
import { auditWriteFailed, clientActor } from '../../audit-actor.js';
import { noStore } from '../../no-store.js';
import type { RouteOptions } from '../../route-options.js';
import { oauthErrorResponses } from '../../schemas.js';
import { refuseHead } from '../../refuse-head.js';

// RFC 7591 (POST /oauth/register) and RFC 7592 (GET/PUT/DELETE /oauth/register/:client_id), issue 19.
// Registered by app.ts only when config registration.policy is not off.

const metadataBody = { type: 'object', additionalProperties: true, description: 'RFC 7591 section 2 client metadata' } as const;
const clientResponse = { type: 'object', additionalProperties: true, description: 'RFC 7591 section 3.2.1' } as const;
const params = {
  type: 'object',
  required: ['client_id'],
  properties: { client_id: { type: 'string' } },
} as const;

// RFC 7591 section 3 and RFC 7592 section 2.2: the request is JSON. An onRequest hook, so it answers before Fastify
// looks for a body parser: a type it has none for (application/xml, multipart/form-data, no type at all) would
// otherwise get the app-wide 415, whose wording names the form bodies of the token endpoints.
async function requireJson(request: FastifyRequest): Promise<void> {
  const mediaType = (request.headers['content-type'] ?? '').split(';', 1)[0]!.trim().toLowerCase();
  if (mediaType !== 'application/json') throw new UnsupportedMediaType('The request body must be application/json.');
}

// RFC 7591 section 3 and RFC 7592 section 2 / RFC 6750 section 2.1: the initial and the registration access
// tokens are Bearer tokens in the header.
function bearerToken(request: FastifyRequest): string | null {
  const match = /^Bearer ([\x21-\x7E]+)$/i.exec(request.headers.authorization ?? '');
  return match?.[1] ?? null;
}

/**
 * The audit trail's record of a client's registration, update or deletion at these endpoints: written alone, after the
 * change (a failed write is logged, the answer stands), so that an admin who finds a client impersonating another can
 * see when, from which address, and how it changed itself. The registrant acts as `anonymous` (or with an initial
 * access token, no account either); the client managing itself with its registration access token as `client:<id>`.
 */
function recordRegistrationEvent(
  deps: RouteOptions['deps'],
  request: FastifyRequest,
  type: AuditEventType,
  application: ApplicationRecord,
  by: AuditActor,
  details: Record<string, unknown>,
): Promise<void> {
  return recordAuditEventAlone(
    deps,
    { ...clientEvent(type, application, details), ...by },
    auditWriteFailed(() => request.log),
  );
}

const bodyOf = (request: FastifyRequest) => (request.body ?? {}) as Record<string, unknown>;
const clientIdOf = (request: FastifyRequest) => (request.params as { client_id: string }).client_id;

export const registerRoutes: FastifyPluginAsync<RouteOptions> = async (app, { deps }) => {
  // Credentials and secrets are in every answer, errors included.
  app.addHook('onRequest', async (_request, reply) => {
    noStore(reply);
  });

  app.post(
    '/oauth/register',
    { schema: { body: metadataBody, response: { 201: clientResponse, ...oauthErrorResponses } }, onRequest: requireJson },
    async (request, reply) => {
      const initialToken = await authorizeRegistration(deps, bearerToken(request));
      const { application, response } = await registerClient(deps, bodyOf(request), initialToken);
      const details = {
        via: 'rfc7591',
        name: response.client_name,
        redirect_uris: response.redirect_uris,
        initial_access_token: initialToken !== null,
      };
      await recordRegistrationEvent(deps, request, 'client.created', application, { actor: 'anonymous', ip: request.ip }, details);
      request.log.info(
        { event: 'application.created', applicationId: application.id, clientId: application.uid, via: 'rfc7591' },
        'application registered',
      );
      return reply.code(201).send(response);
    },
  );

  // RFC 7592 section 2.1: a read rotates the registration access token; a HEAD would drop the new one.
  app.get(
    '/oauth/register/:client_id',
    { schema: { params, response: { 200: clientResponse, ...oauthErrorResponses } }, exposeHeadRoute: false },
    async (request) => readClient(deps, await authorizeManagement(deps, clientIdOf(request), bearerToken(request))),
  );
  refuseHead(app, '/oauth/register/:client_id', ['GET', 'PUT', 'DELETE']);

  app.put(
    '/oauth/register/:client_id',
    { schema: { params, body: metadataBody, response: { 200: clientResponse, ...oauthErrorResponses } }, onRequest: requireJson },
    async (request) => {
      const application = await authorizeManagement(deps, clientIdOf(request), bearerToken(request));
      const updated = await updateClient(deps, application, bodyOf(request), (details, message) => request.log.warn(details, message));
      const details = { via: 'rfc7592', name: updated.client_name, redirect_uris: updated.redirect_uris };
      await recordRegistrationEvent(deps, request, 'client.updated', application, clientActor(request, application.uid), details);
      request.log.info(
        { event: 'application.updated', applicationId: application.id, clientId: application.uid, via: 'rfc7592' },
        'application updated',
      );
      return updated;
    },
  );

  app.delete(
    '/oauth/register/:client_id',
    { schema: { params, response: { 204: { type: 'null', description: 'Deleted' }, ...oauthErrorResponses } } },
    async (request, reply) => {
      const application = await authorizeManagement(deps, clientIdOf(request), bearerToken(request));
      await deleteClient(deps, application);
      const details = { via: 'rfc7592', name: application.name };
      await recordRegistrationEvent(deps, request, 'client.deleted', application, clientActor(request, application.uid), details);
      request.log.info(
        { event: 'application.deleted', applicationId: application.id, clientId: application.uid, via: 'rfc7592' },
        'application deleted',
      );
      return reply.code(204).send();
    },
  );
};
