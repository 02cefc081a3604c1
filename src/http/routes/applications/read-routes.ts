import type { FastifyPluginAsync } from 'fastify';
import type { RouteOptions } from '../../route-options.js';
import { applicationJson } from './application-json.js';
import { fieldsFromBody, fieldsOf } from './request-fields.js';
import { NOT_FOUND, renderAdminPage, sendAdminError, wantsJson } from './responses.js';
import { idParams, responses } from './schemas.js';
import { takeSecretOnce } from './secret-once.js';
import { deleteView, formView, INDEX_PATH, indexView, showView } from './view-models.js';

export interface IdRoute {
  Params: { id: string };
}

/** The admin's GET routes: index, show (HTML and JSON), and the new, edit and delete-confirmation pages. */
export const readRoutes: FastifyPluginAsync<RouteOptions> = async (app, { deps }) => {
  const findApplication = (id: string) => deps.stores.applications.findById(Number(id));

  app.get(INDEX_PATH, { schema: { response: responses.index } }, async (request, reply) => {
    const applications = await deps.stores.applicationAdmin.list();
    if (wantsJson(request)) return reply.send(applications.map((application) => applicationJson(application)));
    return renderAdminPage(request, reply, 'index.eta', indexView(applications));
  });

  app.get(`${INDEX_PATH}/new`, { schema: { response: responses.page } }, async (request, reply) =>
    renderAdminPage(request, reply, 'new.eta', formView(deps.config, fieldsFromBody(undefined))),
  );

  app.get<IdRoute>(`${INDEX_PATH}/:id`, { schema: { params: idParams, response: responses.show } }, async (request, reply) => {
    const application = await findApplication(request.params.id);
    if (!application) return sendAdminError(request, reply, 404, NOT_FOUND);
    if (wantsJson(request)) return reply.send(applicationJson(application));
    return renderAdminPage(request, reply, 'show.eta', showView(deps.config, application, takeSecretOnce(request, application.id)));
  });

  app.get<IdRoute>(`${INDEX_PATH}/:id/edit`, { schema: { params: idParams, response: responses.page } }, async (request, reply) => {
    const application = await findApplication(request.params.id);
    if (!application) return sendAdminError(request, reply, 404, NOT_FOUND);
    return renderAdminPage(request, reply, 'edit.eta', formView(deps.config, fieldsOf(application), { application }));
  });

  // Reference 15.6 asks "Are you sure?" with JavaScript, which the CSP forbids inline: a page asks instead.
  app.get<IdRoute>(`${INDEX_PATH}/:id/delete`, { schema: { params: idParams, response: responses.page } }, async (request, reply) => {
    const application = await findApplication(request.params.id);
    if (!application) return sendAdminError(request, reply, 404, NOT_FOUND);
    return renderAdminPage(request, reply, 'delete.eta', deleteView(application));
  });
};
