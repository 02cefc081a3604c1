import type { FastifyReply, FastifyRequest } from 'fastify';
import { findApplicationByUid } from '../../../oauth/clients/applications.js';
import {
  createResource,
  deleteResource,
  findResource,
  listResources,
  resourceAttributes,
  resourceFieldsOf,
  ResourceInvalid,
  updateResource,
  type ResourceFields,
} from '../../../oauth/resources/resources.js';
import type { ResourceRecord } from '../../../oauth/store.js';
import { Controller } from '../../controllers/controller.js';
import { adminActor } from '../../audit-actor.js';
import { auditedChange } from '../../../oauth/audit/audit-trail.js';
import { resourceEvent, resourceUpdatedEvent } from '../../../oauth/audit/audit-subjects.js';
import { wantsJson } from '../applications/responses.js';
import { changesFromBody, fieldsFromBody, type ResourceBody } from './request-fields.js';
import { renderResourcesPage, resourceNotFound } from './responses.js';
import { deleteView, formView, INDEX_PATH, indexView, showPath, showView } from './view-models.js';

export interface ResourceRoute {
  Params: { id: string };
  Body: ResourceBody | undefined;
}
type ResourceRequest = FastifyRequest<ResourceRoute>;

/**
 * The admin's Resources section (issue 17): the APIs registered as resources (RFC 8707), as pages and as a JSON
 * API like the applications'. The group authenticates the admin (and checks CSRF on writes) first.
 */
export class ResourcesController extends Controller {
  async index(request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
    const resources = await listResources(this.deps);
    if (wantsJson(request)) return reply.send(resources.map(resourceAttributes));
    return renderResourcesPage(request, reply, 'index.eta', indexView(resources));
  }

  async new(request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
    return renderResourcesPage(request, reply, 'new.eta', formView(this.deps.config, fieldsFromBody(undefined)));
  }

  async create(request: FastifyRequest<{ Body: ResourceBody | undefined }>, reply: FastifyReply): Promise<FastifyReply> {
    const fields = fieldsFromBody(request.body);
    try {
      const create = (deps: typeof this.deps) => createResource(deps, fields);
      const resource = await auditedChange(this.deps, adminActor(request), create, (r) => resourceEvent('resource.created', r));
      request.log.info({ event: 'resource.created', resourceId: resource.id, uri: resource.uri }, 'resource created');
      if (wantsJson(request)) return reply.code(201).header('location', showPath(resource.id)).send(resourceAttributes(resource));
      return redirectAfter(request, reply, 'Resource created.', showPath(resource.id));
    } catch (error) {
      return this.#invalid(request, reply, error, 'new.eta', fields);
    }
  }

  async show(request: ResourceRequest, reply: FastifyReply): Promise<FastifyReply> {
    const resource = await this.#resource(request);
    if (!resource) return resourceNotFound(request, reply);
    if (wantsJson(request)) return reply.send(resourceAttributes(resource));
    const server = resource.serverClientId === null ? null : await findApplicationByUid(this.deps, resource.serverClientId);
    return renderResourcesPage(request, reply, 'show.eta', showView(this.deps.config, resource, server));
  }

  async edit(request: ResourceRequest, reply: FastifyReply): Promise<FastifyReply> {
    const resource = await this.#resource(request);
    if (!resource) return resourceNotFound(request, reply);
    return renderResourcesPage(request, reply, 'edit.eta', formView(this.deps.config, resourceFieldsOf(resource), { resource }));
  }

  async update(request: ResourceRequest, reply: FastifyReply): Promise<FastifyReply> {
    const current = await this.#resource(request);
    if (!current) return resourceNotFound(request, reply);
    const changes = changesFromBody(request.body);
    try {
      const update = (deps: typeof this.deps) => updateResource(deps, current.id, changes);
      const updated = await auditedChange(this.deps, adminActor(request), update, (r) => resourceUpdatedEvent(current, r));
      if (!updated) return resourceNotFound(request, reply);
      request.log.info({ event: 'resource.updated', resourceId: updated.id, uri: updated.uri }, 'resource updated');
      if (wantsJson(request)) return reply.send(resourceAttributes(updated));
      return redirectAfter(request, reply, 'Resource updated.', showPath(updated.id));
    } catch (error) {
      const typed = { ...resourceFieldsOf(current), ...definedOnly(changes) };
      return this.#invalid(request, reply, error, 'edit.eta', typed, current);
    }
  }

  // A page asks "Are you sure?": the CSP forbids the inline script a confirm() would need.
  async confirmDestroy(request: ResourceRequest, reply: FastifyReply): Promise<FastifyReply> {
    const resource = await this.#resource(request);
    return resource ? renderResourcesPage(request, reply, 'delete.eta', deleteView(resource)) : resourceNotFound(request, reply);
  }

  async destroy(request: ResourceRequest, reply: FastifyReply): Promise<FastifyReply> {
    const id = Number(request.params.id);
    const resource = await this.#resource(request);
    const remove = async (deps: typeof this.deps) => resource !== null && (await deleteResource(deps, id));
    if (
      !(await auditedChange(this.deps, adminActor(request), remove, (deleted) =>
        resourceEvent('resource.deleted', deleted ? resource : null),
      ))
    )
      return resourceNotFound(request, reply);
    request.log.info({ event: 'resource.deleted', resourceId: id }, 'resource deleted');
    if (wantsJson(request)) return reply.code(204).send();
    return redirectAfter(request, reply, 'Resource deleted.', INDEX_PATH);
  }

  #resource(request: ResourceRequest): Promise<ResourceRecord | null> {
    return findResource(this.deps, Number(request.params.id));
  }

  #invalid(
    request: FastifyRequest,
    reply: FastifyReply,
    error: unknown,
    template: string,
    fields: ResourceFields,
    resource?: ResourceRecord,
  ): FastifyReply {
    if (!(error instanceof ResourceInvalid)) throw error;
    if (wantsJson(request)) return reply.code(422).send({ errors: error.messages });
    const view = formView(this.deps.config, fields, { resource, errors: error.fieldErrors });
    return renderResourcesPage(request, reply.code(422), template, view);
  }
}

// After a real PATCH, PUT or DELETE a 303 makes the browser GET the next page instead of repeating the method.
function redirectAfter(request: FastifyRequest, reply: FastifyReply, notice: string, to: string): FastifyReply {
  request.session.set('notice', notice);
  return reply.redirect(to, request.method === 'POST' ? 302 : 303);
}

const definedOnly = (changes: Partial<ResourceFields>) =>
  Object.fromEntries(Object.entries(changes).filter(([, value]) => value !== undefined)) as Partial<ResourceFields>;
