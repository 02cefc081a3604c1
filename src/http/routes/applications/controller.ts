import type { FastifyReply, FastifyRequest } from 'fastify';
import {
  ApplicationInvalid,
  approveApplication,
  ApprovalNotNeeded,
  ApprovalOfChangedApplication,
  createApplication,
  deleteApplication,
  findApplication,
  listApplications,
  setApplicationDisabled,
  updateApplication,
  type ApplicationListFilter,
} from '../../../oauth/clients/applications.js';
import { rotateApplicationSecret } from '../../../oauth/clients/application-secrets.js';
import { usesClientSecret } from '../../../oauth/clients/client-authentication-setting.js';
import { NotFound } from '../../../oauth/errors.js';
import type { VerdictResult } from '../../../oauth/clients/application-approval.js';
import { applicationJson } from '../../../oauth/clients/application-json.js';
import { fieldsFromBody, fieldsOf, type ApplicationBody } from './request-fields.js';
import { NOT_FOUND, renderAdminPage, sendAdminError, wantsJson } from './responses.js';
import { carrySecretOnce, takeSecretOnce } from './secret-once.js';
import { deleteView, formView, INDEX_PATH, indexView, rotateSecretView, showPath, showView } from './view-models.js';
import { Controller } from '../../controllers/controller.js';
import { adminActor } from '../../audit-actor.js';
import { auditedChange } from '../../../oauth/audit/audit-trail.js';
import { clientEvent, verdictEvent } from '../../../oauth/audit/audit-subjects.js';
import { changedFormFields } from '../../../oauth/audit/changed-fields.js';

export interface ApplicationRoute {
  Params: { id: string };
  Body: ApplicationBody | undefined;
}
type ApplicationRequest = FastifyRequest<ApplicationRoute>;
type NewApplicationRequest = FastifyRequest<{ Body: ApplicationBody | undefined }>;
type IndexRequest = FastifyRequest<{ Querystring: { filter?: ApplicationListFilter } }>;

/**
 * Controller key `applications` (SPEC 3.6; reference 13 and 15.6 to 15.8): the admin's pages and JSON API.
 * `index`, `new`, `create`, `show`, `edit`, `update`, `destroy`, plus `confirmDestroy` (the page that asks
 * before deleting), `rotateSecret`, and issue 19's `approve`, `disable` and `enable`. The group authenticates the admin (and checks CSRF on writes) first.
 */
export class ApplicationsController extends Controller {
  async index(request: IndexRequest, reply: FastifyReply): Promise<FastifyReply> {
    const { filter } = request.query;
    const applications = await listApplications(this.deps, filter);
    if (wantsJson(request)) return reply.send(applications.map((application) => applicationJson(application)));
    return renderAdminPage(request, reply, 'index.eta', indexView(applications, filter));
  }

  async new(request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
    return renderAdminPage(request, reply, 'new.eta', formView(this.deps.config, fieldsFromBody(undefined)));
  }

  async create(request: NewApplicationRequest, reply: FastifyReply): Promise<FastifyReply> {
    const fields = fieldsFromBody(request.body);
    try {
      const created = (deps: typeof this.deps) => createApplication(deps, fields);
      const { application, plainSecret } = await auditedChange(this.deps, adminActor(request), created, (r) =>
        clientEvent('client.created', r.application),
      );
      request.log.info({ event: 'application.created', applicationId: application.id, clientId: application.uid }, 'application created');
      if (wantsJson(request))
        return reply.code(201).header('location', showPath(application.id)).send(applicationJson(application, plainSecret));
      carrySecretOnce(request, application.id, plainSecret);
      return redirectAfter(request, reply, 'Application created.', showPath(application.id));
    } catch (error) {
      if (!(error instanceof ApplicationInvalid)) throw error;
      return invalid(request, reply, error, () =>
        renderAdminPage(request, reply.code(422), 'new.eta', formView(this.deps.config, fields, { errors: error.fieldErrors })),
      );
    }
  }

  async show(request: ApplicationRequest, reply: FastifyReply): Promise<FastifyReply> {
    const application = await findApplication(this.deps, Number(request.params.id));
    if (!application) return sendAdminError(request, reply, new NotFound(NOT_FOUND));
    if (wantsJson(request)) return reply.send(applicationJson(application));
    return renderAdminPage(
      request,
      reply,
      'show.eta',
      showView(this.deps.config, application, await takeSecretOnce(this.deps, request, application.id)),
    );
  }

  async edit(request: ApplicationRequest, reply: FastifyReply): Promise<FastifyReply> {
    const application = await findApplication(this.deps, Number(request.params.id));
    if (!application) return sendAdminError(request, reply, new NotFound(NOT_FOUND));
    return renderAdminPage(request, reply, 'edit.eta', formView(this.deps.config, fieldsOf(application), { application }));
  }

  async update(request: ApplicationRequest, reply: FastifyReply): Promise<FastifyReply> {
    const id = Number(request.params.id);
    const current = await findApplication(this.deps, id);
    if (!current) return sendAdminError(request, reply, new NotFound(NOT_FOUND));
    const fields = fieldsFromBody(request.body, current);
    try {
      const changed = changedFormFields(fieldsOf(current), fields);
      // The body merged into the row as it is when the update has it locked (a concurrent change kept), not as read here.
      const update = (deps: typeof this.deps) => updateApplication(deps, id, (latest) => fieldsFromBody(request.body, latest));
      // Nothing recorded for an update that changes nothing (a form saved as it was, an empty PATCH).
      const updated = await auditedChange(this.deps, adminActor(request), update, (r) =>
        changed.length === 0 ? null : clientEvent('client.updated', r?.application, { fields: changed }),
      );
      if (!updated) return sendAdminError(request, reply, new NotFound(NOT_FOUND));
      request.log.info({ event: 'application.updated', applicationId: id, clientId: current.uid }, 'application updated');
      if (wantsJson(request)) return reply.send(applicationJson(updated.application, updated.plainSecret));
      // Turning a public client confidential gives it its first secret, shown once like any other.
      carrySecretOnce(request, id, updated.plainSecret);
      return redirectAfter(request, reply, 'Application updated.', showPath(id));
    } catch (error) {
      if (!(error instanceof ApplicationInvalid)) throw error;
      return invalid(request, reply, error, () =>
        renderAdminPage(
          request,
          reply.code(422),
          'edit.eta',
          formView(this.deps.config, fields, { application: current, errors: error.fieldErrors }),
        ),
      );
    }
  }

  // Reference 15.6 asks "Are you sure?" with JavaScript, which the CSP forbids inline: a page asks instead.
  async confirmDestroy(request: ApplicationRequest, reply: FastifyReply): Promise<FastifyReply> {
    const application = await findApplication(this.deps, Number(request.params.id));
    if (!application) return sendAdminError(request, reply, new NotFound(NOT_FOUND));
    return renderAdminPage(request, reply, 'delete.eta', deleteView(application));
  }

  async destroy(request: ApplicationRequest, reply: FastifyReply): Promise<FastifyReply> {
    const id = Number(request.params.id);
    // Reference 13: the application's grants and tokens go with it (ON DELETE CASCADE).
    const application = await findApplication(this.deps, id);
    const remove = async (deps: typeof this.deps) => application !== null && (await deleteApplication(deps, id));
    if (
      !(await auditedChange(this.deps, adminActor(request), remove, (deleted) =>
        clientEvent('client.deleted', deleted ? application : null),
      ))
    )
      return sendAdminError(request, reply, new NotFound(NOT_FOUND));
    request.log.info({ event: 'application.deleted', applicationId: id }, 'application deleted');
    if (wantsJson(request)) return reply.code(204).send();
    return redirectAfter(request, reply, 'Application deleted.', INDEX_PATH);
  }

  // The current secret stops working the moment a new one is made, so a page asks first, as for Destroy.
  async confirmRotateSecret(request: ApplicationRequest, reply: FastifyReply): Promise<FastifyReply> {
    const application = await findApplication(this.deps, Number(request.params.id));
    if (!application) return sendAdminError(request, reply, new NotFound(NOT_FOUND));
    if (!usesClientSecret(application))
      return redirectAfter(request, reply, 'This application has no secret to rotate.', showPath(application.id));
    return renderAdminPage(request, reply, 'rotate-secret.eta', rotateSecretView(application));
  }

  async rotateSecret(request: ApplicationRequest, reply: FastifyReply): Promise<FastifyReply> {
    const id = Number(request.params.id);
    try {
      const rotate = (deps: typeof this.deps) => rotateApplicationSecret(deps, id);
      const rotated = await auditedChange(this.deps, adminActor(request), rotate, (r) =>
        clientEvent('client.secret_rotated', r?.application),
      );
      if (!rotated) return sendAdminError(request, reply, new NotFound(NOT_FOUND));
      request.log.info(
        { event: 'application.secret_rotated', applicationId: id, clientId: rotated.application.uid },
        'application secret rotated',
      );
      if (wantsJson(request)) return reply.send(applicationJson(rotated.application, rotated.plainSecret));
      carrySecretOnce(request, id, rotated.plainSecret);
      return redirectAfter(
        request,
        reply,
        "Secret rotated. The old secret no longer works here, and on the service's other instances within 5 seconds.",
        showPath(id),
      );
    } catch (error) {
      if (!(error instanceof ApplicationInvalid)) throw error;
      return invalid(request, reply, error, () => redirectAfter(request, reply, error.messages.join(' '), showPath(id)));
    }
  }

  // Issue 19: an admin vouches for a self-registered client; the consent screen stops warning about it.
  async approve(request: ApplicationRequest, reply: FastifyReply): Promise<FastifyReply> {
    const id = Number(request.params.id);
    try {
      const approve = (deps: typeof this.deps) => approveApplication(deps, id, request.body?.reviewed);
      const approved = await auditedChange(this.deps, adminActor(request), approve, (r) => verdictEvent('client.approved', r));
      return this.#stateChanged(request, reply, approved, 'application.approved', 'Application approved.');
    } catch (error) {
      if (!(error instanceof ApprovalNotNeeded) && !(error instanceof ApprovalOfChangedApplication)) throw error;
      if (wantsJson(request)) return reply.code(error instanceof ApprovalNotNeeded ? 422 : 409).send({ errors: [error.message] });
      return redirectAfter(request, reply, error.message, showPath(id));
    }
  }

  async disable(request: ApplicationRequest, reply: FastifyReply): Promise<FastifyReply> {
    const disable = (deps: typeof this.deps) => setApplicationDisabled(deps, Number(request.params.id), true);
    const disabled = await auditedChange(this.deps, adminActor(request), disable, (r) => verdictEvent('client.disabled', r));
    const notice = 'Application disabled: it can no longer be authorized or get tokens. Tokens already issued were not revoked.';
    return this.#stateChanged(request, reply, disabled, 'application.disabled', notice);
  }

  async enable(request: ApplicationRequest, reply: FastifyReply): Promise<FastifyReply> {
    const enable = (deps: typeof this.deps) => setApplicationDisabled(deps, Number(request.params.id), false);
    const enabled = await auditedChange(this.deps, adminActor(request), enable, (r) => verdictEvent('client.enabled', r));
    return this.#stateChanged(request, reply, enabled, 'application.enabled', 'Application enabled.');
  }

  #stateChanged(request: ApplicationRequest, reply: FastifyReply, result: VerdictResult | null, event: string, notice: string) {
    if (!result) return sendAdminError(request, reply, new NotFound(NOT_FOUND));
    const { application } = result;
    request.log.info({ event, applicationId: application.id, clientId: application.uid }, event.replace('.', ' '));
    if (wantsJson(request)) return reply.send(applicationJson(application));
    return redirectAfter(request, reply, notice, showPath(application.id));
  }
}

// After a real PATCH, PUT or DELETE a 303 makes the browser GET the next page instead of repeating the method.
function redirectAfter(request: FastifyRequest, reply: FastifyReply, notice: string, to: string): FastifyReply {
  request.session.set('notice', notice);
  return reply.redirect(to, ['PATCH', 'PUT', 'DELETE'].includes(request.method) ? 303 : 302);
}

function invalid(request: FastifyRequest, reply: FastifyReply, error: ApplicationInvalid, page: () => FastifyReply): FastifyReply {
  return wantsJson(request) ? reply.code(422).send({ errors: error.messages }) : page();
}
