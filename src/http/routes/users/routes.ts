import type { FastifyPluginAsync } from 'fastify';
import type { IdentityRoute, UserRoute, UsersController } from './controller.js';
import type { UserBody } from './request-fields.js';
import {
  createBody,
  csrfOnlyBody,
  identityBody,
  identityQuery,
  idParams,
  methodOverrideBody,
  mfaBody,
  passwordBody,
  responses,
  searchQuery,
} from './schemas.js';
import { INDEX_PATH } from './view-models.js';

/** The Users section's routes; every POST checks the form's CSRF token before its body is even validated. */
export const userRoutes: FastifyPluginAsync<{ controller: UsersController }> = async (app, { controller }) => {
  const csrf = app.csrfProtection;
  const byId = { params: idParams, response: responses.page };

  app.get<{ Querystring: { q?: string } }>(
    INDEX_PATH,
    { schema: { querystring: searchQuery, response: responses.page } },
    (request, reply) => controller.index(request, reply),
  );
  app.get(`${INDEX_PATH}/new`, { schema: { response: responses.page } }, (request, reply) => controller.new(request, reply));
  app.get<UserRoute>(`${INDEX_PATH}/:id`, { schema: byId }, (request, reply) => controller.show(request, reply));
  app.get<UserRoute>(`${INDEX_PATH}/:id/edit`, { schema: byId }, (request, reply) => controller.edit(request, reply));
  app.get<UserRoute>(`${INDEX_PATH}/:id/password`, { schema: byId }, (request, reply) => controller.passwordForm(request, reply));
  app.get<UserRoute>(`${INDEX_PATH}/:id/delete`, { schema: byId }, (request, reply) => controller.confirmDestroy(request, reply));
  app.get<UserRoute>(`${INDEX_PATH}/:id/reset_passkeys`, { schema: byId }, (request, reply) =>
    controller.confirmResetPasskeys(request, reply),
  );
  app.get<UserRoute>(`${INDEX_PATH}/:id/reset_second_factor`, { schema: byId }, (request, reply) =>
    controller.confirmResetSecondFactor(request, reply),
  );
  app.get<UserRoute>(`${INDEX_PATH}/:id/revoke_tokens`, { schema: byId }, (request, reply) =>
    controller.confirmRevokeTokens(request, reply),
  );
  app.get<IdentityRoute>(`${INDEX_PATH}/:id/remove_identity`, { schema: { ...byId, querystring: identityQuery } }, (request, reply) =>
    controller.confirmRemoveIdentity(request, reply),
  );

  app.post<{ Body: UserBody | undefined }>(
    INDEX_PATH,
    { schema: { body: createBody, response: responses.write }, preValidation: csrf },
    (request, reply) => controller.create(request, reply),
  );
  // HTML forms can only POST: the edit and delete forms send _method=patch or _method=delete.
  app.post<UserRoute>(
    `${INDEX_PATH}/:id`,
    { schema: { params: idParams, body: methodOverrideBody, response: responses.write }, preValidation: csrf },
    (request, reply) =>
      request.body?._method?.toLowerCase() === 'delete' ? controller.destroy(request, reply) : controller.update(request, reply),
  );
  const action = { params: idParams, body: csrfOnlyBody, response: responses.write };
  app.post<UserRoute>(`${INDEX_PATH}/:id/password`, { schema: { ...action, body: passwordBody }, preValidation: csrf }, (request, reply) =>
    controller.resetPassword(request, reply),
  );
  app.post<UserRoute>(`${INDEX_PATH}/:id/disable`, { schema: action, preValidation: csrf }, (request, reply) =>
    controller.disable(request, reply),
  );
  app.post<UserRoute>(`${INDEX_PATH}/:id/enable`, { schema: action, preValidation: csrf }, (request, reply) =>
    controller.enable(request, reply),
  );
  app.post<UserRoute>(`${INDEX_PATH}/:id/mfa`, { schema: { ...action, body: mfaBody }, preValidation: csrf }, (request, reply) =>
    controller.setMfa(request, reply),
  );
  app.post<UserRoute>(`${INDEX_PATH}/:id/reset_second_factor`, { schema: action, preValidation: csrf }, (request, reply) =>
    controller.resetSecondFactor(request, reply),
  );
  app.post<UserRoute>(`${INDEX_PATH}/:id/reset_passkeys`, { schema: action, preValidation: csrf }, (request, reply) =>
    controller.resetPasskeys(request, reply),
  );
  app.post<IdentityRoute>(
    `${INDEX_PATH}/:id/remove_identity`,
    { schema: { ...action, body: identityBody }, preValidation: csrf },
    (request, reply) => controller.removeIdentity(request, reply),
  );
  app.post<UserRoute>(`${INDEX_PATH}/:id/revoke_tokens`, { schema: action, preValidation: csrf }, (request, reply) =>
    controller.revokeTokens(request, reply),
  );
};
