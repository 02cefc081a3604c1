import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { ApplicationInvalid, createApplication, rotateApplicationSecret, updateApplication } from '../../../oauth/applications.js';
import type { RouteOptions } from '../../route-options.js';
import { applicationJson } from './application-json.js';
import { requireCsrfToken } from './csrf.js';
import type { IdRoute } from './read-routes.js';
import { fieldsFromBody, type ApplicationBody } from './request-fields.js';
import { NOT_FOUND, renderAdminPage, sendAdminError, wantsJson } from './responses.js';
import { applicationBody, csrfOnlyBody, idParams, methodOverrideBody, methodOverrideResponses, responses } from './schemas.js';
import { carrySecretOnce } from './secret-once.js';
import { formView, INDEX_PATH, showPath } from './view-models.js';

type WithBody = IdRoute & { Body: ApplicationBody | undefined };
type Request = FastifyRequest<WithBody>;

/** The admin's state-changing routes: create, update, destroy, rotate secret (reference 13; SPEC 3.6). */
export const writeRoutes: FastifyPluginAsync<RouteOptions> = async (app, { deps }) => {
  const csrf = requireCsrfToken(app);

  // After a real PATCH, PUT or DELETE a 303 makes the browser GET the next page instead of repeating the method.
  const redirectAfter = (request: FastifyRequest, reply: FastifyReply, notice: string, to: string) => {
    request.session.set('notice', notice);
    return reply.redirect(to, request.method === 'POST' ? 302 : 303);
  };

  const invalid = (request: FastifyRequest, reply: FastifyReply, error: ApplicationInvalid, page: () => FastifyReply) =>
    wantsJson(request) ? reply.code(422).send({ errors: error.messages }) : page();

  async function create(request: FastifyRequest<{ Body: ApplicationBody | undefined }>, reply: FastifyReply) {
    const fields = fieldsFromBody(request.body);
    try {
      const { application, plainSecret } = await createApplication(deps, fields);
      request.log.info({ event: 'application.created', applicationId: application.id, clientId: application.uid }, 'application created');
      if (wantsJson(request)) return reply.code(201).header('location', showPath(application.id)).send(applicationJson(application, plainSecret));
      carrySecretOnce(request, application.id, plainSecret);
      return redirectAfter(request, reply, 'Application created.', showPath(application.id));
    } catch (error) {
      if (!(error instanceof ApplicationInvalid)) throw error;
      return invalid(request, reply, error, () =>
        renderAdminPage(request, reply.code(422), 'new.eta', formView(deps.config, fields, { errors: error.fieldErrors })),
      );
    }
  }

  async function update(request: Request, reply: FastifyReply) {
    const id = Number(request.params.id);
    const current = await deps.stores.applications.findById(id);
    if (!current) return sendAdminError(request, reply, 404, NOT_FOUND);
    const fields = fieldsFromBody(request.body, current);
    try {
      const updated = await updateApplication(deps, id, fields);
      if (!updated) return sendAdminError(request, reply, 404, NOT_FOUND);
      request.log.info({ event: 'application.updated', applicationId: id, clientId: current.uid }, 'application updated');
      if (wantsJson(request)) return reply.send(applicationJson(updated.application, updated.plainSecret));
      // Turning a public client confidential gives it its first secret, shown once like any other.
      carrySecretOnce(request, id, updated.plainSecret);
      return redirectAfter(request, reply, 'Application updated.', showPath(id));
    } catch (error) {
      if (!(error instanceof ApplicationInvalid)) throw error;
      return invalid(request, reply, error, () =>
        renderAdminPage(request, reply.code(422), 'edit.eta', formView(deps.config, fields, { application: current, errors: error.fieldErrors })),
      );
    }
  }

  async function destroy(request: Request, reply: FastifyReply) {
    const id = Number(request.params.id);
    // Reference 13: the application's grants and tokens go with it (ON DELETE CASCADE).
    if (!(await deps.stores.applicationAdmin.delete(id))) return sendAdminError(request, reply, 404, NOT_FOUND);
    request.log.info({ event: 'application.deleted', applicationId: id }, 'application deleted');
    if (wantsJson(request)) return reply.code(204).send();
    return redirectAfter(request, reply, 'Application deleted.', INDEX_PATH);
  }

  async function rotateSecret(request: Request, reply: FastifyReply) {
    const id = Number(request.params.id);
    try {
      const rotated = await rotateApplicationSecret(deps, id);
      if (!rotated) return sendAdminError(request, reply, 404, NOT_FOUND);
      request.log.info({ event: 'application.secret_rotated', applicationId: id, clientId: rotated.application.uid }, 'application secret rotated');
      if (wantsJson(request)) return reply.send(applicationJson(rotated.application, rotated.plainSecret));
      carrySecretOnce(request, id, rotated.plainSecret);
      return redirectAfter(request, reply, 'Secret rotated. The old secret no longer works.', showPath(id));
    } catch (error) {
      if (!(error instanceof ApplicationInvalid)) throw error;
      return invalid(request, reply, error, () => redirectAfter(request, reply, error.messages.join(' '), showPath(id)));
    }
  }

  app.post<{ Body: ApplicationBody | undefined }>(INDEX_PATH, { schema: { body: applicationBody, response: responses.create }, preValidation: csrf }, create);

  const updateSchema = { params: idParams, body: applicationBody, response: responses.update };
  app.patch<WithBody>(`${INDEX_PATH}/:id`, { schema: updateSchema, preValidation: csrf }, update);
  app.put<WithBody>(`${INDEX_PATH}/:id`, { schema: updateSchema, preValidation: csrf }, update);
  app.delete<WithBody>(`${INDEX_PATH}/:id`, { schema: { params: idParams, response: responses.destroy }, preValidation: csrf }, destroy);

  // HTML forms can only GET and POST: the edit and delete forms POST with _method=patch or _method=delete.
  app.post<WithBody>(
    `${INDEX_PATH}/:id`,
    { schema: { params: idParams, body: methodOverrideBody, response: methodOverrideResponses }, preValidation: csrf },
    async (request, reply) => (request.body?._method?.toLowerCase() === 'delete' ? destroy(request, reply) : update(request, reply)),
  );

  app.post<WithBody>(
    `${INDEX_PATH}/:id/rotate_secret`,
    { schema: { params: idParams, body: csrfOnlyBody, response: responses.rotate }, preValidation: csrf },
    rotateSecret,
  );
};
