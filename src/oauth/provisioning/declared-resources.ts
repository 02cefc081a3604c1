import {
  createResource,
  deleteResource,
  findResourceByUri,
  listResources,
  ResourceInvalid,
  storedResourceInput,
  updateResource,
  type ResourceFields,
} from '../resources/resources.js';
import { changedRecordFields } from '../audit/changed-fields.js';
import { fieldProblems, type KindHandler, type Outcome } from './outcome.js';

// `resources` of a provisioning file: the APIs registered as resources (RFC 8707), identified by their URI (the
// resource indicator, compared exactly). A field left out takes the value `resources create` gives it. They are
// applied after the applications, so a server_client_id may name an application of the same file.

export interface DeclaredResource {
  path: string;
  uri: string;
  fields: ResourceFields;
}

/**
 * A server_client_id naming an application of the file that could not be created is "none" to the domain: said as what
 * it is, pointing at that application's problems.
 */
function serverClientNamed(
  errors: ResourceInvalid['fieldErrors'],
  declared: DeclaredResource,
  outcome: Outcome,
): ResourceInvalid['fieldErrors'] {
  const uid = declared.fields.serverClientId.trim();
  const refusedAt = outcome.uncreatedApplications.get(uid);
  if (errors.server_client_id === undefined || refusedAt === undefined) return errors;
  return {
    ...errors,
    server_client_id: [`names the application ${JSON.stringify(uid)} of this file, which cannot be created (${refusedAt})`],
  };
}

export const declaredResources: KindHandler<DeclaredResource> = {
  member: 'resources',
  fields: ['uri', 'name', 'scopes', 'token_format', 'access_token_lifetime', 'server_client_id'],
  identityField: 'uri',
  identity: (resource) => resource.uri,

  read(object) {
    const uri = object.string('uri', { required: true });
    const scopes = object.tokens('scopes', 'one scope');
    // The domain checks the range (resource-validation.ts); here only that it is a whole number.
    const lifetime = object.integer('access_token_lifetime', 0, Number.MAX_SAFE_INTEGER);
    const fields: ResourceFields = {
      uri: uri ?? '',
      name: object.nullableString('name') ?? '',
      scopes: scopes.join(' '),
      tokenFormat: object.string('token_format') ?? '',
      accessTokenLifetime: lifetime === null || lifetime === undefined ? '' : String(lifetime),
      serverClientId: object.nullableString('server_client_id') ?? '',
    };
    return uri === undefined ? null : { path: object.path, uri, fields };
  },

  async apply(deps, declared, outcome) {
    try {
      const current = await findResourceByUri(deps, declared.uri);
      if (current === null) {
        await createResource(deps, declared.fields);
        outcome.changes.push({ kind: 'resource', name: declared.uri, action: 'created', fields: [] });
        return;
      }
      const fields = changedRecordFields(storedResourceInput(declared.fields), current);
      if (fields.length > 0) await updateResource(deps, current.id, declared.fields);
      outcome.changes.push({ kind: 'resource', name: declared.uri, action: fields.length > 0 ? 'updated' : 'unchanged', fields });
    } catch (error) {
      if (!(error instanceof ResourceInvalid)) throw error;
      outcome.problems.push(...fieldProblems(declared.path, serverClientNamed(error.fieldErrors, declared, outcome)));
    }
  },

  async prune(deps, declared, outcome) {
    const uris = new Set(declared.map((resource) => resource.uri));
    for (const resource of await listResources(deps)) {
      if (uris.has(resource.uri)) continue;
      await deleteResource(deps, resource.id);
      outcome.changes.push({ kind: 'resource', name: resource.uri, action: 'deleted', fields: [] });
    }
  },
};
