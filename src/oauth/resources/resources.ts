import { jsonSchemas } from './authorization-details.js';
import { declarationProblem, storedDeclaration, type AuthorizationDetailsTypes } from './authorization-details-schemas.js';
import { isAccessTokenFormat } from '../tokens/access-token-format.js';
import type { OAuthDeps } from '../deps.js';
import { normalised, resourceFieldErrors, type ResourceFieldErrors, type ResourceFields } from './resource-validation.js';
import { parseScopes } from '../scopes.js';
import { ResourceUriTaken, type ResourceInput, type ResourceRecord } from '../store.js';

export type { ResourceField, ResourceFieldErrors, ResourceFields } from './resource-validation.js';
export { MAX_LIFETIME, MIN_LIFETIME } from './resource-validation.js';

// The APIs registered as resources (RFC 8707, issue 17): what the admin UI, the JSON API and the CLI do to them.
// The token side reads them (invalid_target, audience, token format and lifetime); nothing here issues tokens.

export class ResourceInvalid extends Error {
  constructor(readonly fieldErrors: ResourceFieldErrors) {
    super(Object.values(fieldErrors).flat().join(' '));
  }

  get messages(): string[] {
    return Object.values(this.fieldErrors).flat();
  }
}

export const URI_TAKEN = 'URI is already registered';

/** The typed form of a stored resource: what an edit form starts from, and what an update changes. */
export function resourceFieldsOf(resource: ResourceRecord): ResourceFields {
  return {
    uri: resource.uri,
    name: resource.name,
    scopes: resource.scopes.join(' '),
    tokenFormat: resource.tokenFormat,
    accessTokenLifetime: resource.accessTokenLifetime === null ? '' : String(resource.accessTokenLifetime),
    serverClientId: resource.serverClientId ?? '',
    authorizationDetailsTypes: declarationText(resource.authorizationDetailsTypes),
  };
}

/** The declaration as the form's textarea shows it: indented JSON, '' for none. */
export function declarationText(types: AuthorizationDetailsTypes): string {
  return Object.keys(types).length === 0 ? '' : JSON.stringify(types, null, 2);
}

/** Every problem at once: the field rules, then whether the server client exists. Throws ResourceInvalid. */
async function validated(deps: OAuthDeps, fields: ResourceFields): Promise<ResourceInput> {
  const errors = resourceFieldErrors(fields, deps.config);
  const serverClientId = normalised('serverClientId', fields.serverClientId);
  // The API introspects the tokens meant for it with its own client credentials: it must be an application.
  if (!errors.server_client_id && serverClientId !== '' && !(await deps.stores.applications.findByUid(serverClientId))) {
    errors.server_client_id = [
      `Server client ID must be the client_id (UID) of a registered application: there is none with ${JSON.stringify(serverClientId.slice(0, 60))}`,
    ];
  }
  const declarationError = await declarationTextProblem(deps, fields.authorizationDetailsTypes ?? '');
  if (declarationError !== null) errors.authorization_details_types = [declarationError];
  if (Object.keys(errors).length > 0) throw new ResourceInvalid(errors);
  return storedResourceInput(fields);
}

/** The stored form of valid fields: what create and update write (and what `apply` compares with a stored resource). */
export function storedResourceInput(fields: ResourceFields): ResourceInput {
  const serverClientId = normalised('serverClientId', fields.serverClientId);
  const tokenFormat = normalised('tokenFormat', fields.tokenFormat) || 'opaque';
  const lifetime = normalised('accessTokenLifetime', fields.accessTokenLifetime);
  return {
    uri: normalised('uri', fields.uri),
    name: normalised('name', fields.name),
    scopes: parseScopes(fields.scopes),
    tokenFormat: isAccessTokenFormat(tokenFormat) ? tokenFormat : 'opaque',
    accessTokenLifetime: lifetime === '' ? null : Number(lifetime),
    serverClientId: serverClientId === '' ? null : serverClientId,
    ...(fields.authorizationDetailsTypes !== undefined && { authorizationDetailsTypes: declarationOf(fields.authorizationDetailsTypes) }),
  };
}

// RFC 9396 section 2: the types as typed: JSON, then a declaration whose schemas are schemas.
async function declarationTextProblem(deps: OAuthDeps, text: string): Promise<string | null> {
  if (text.trim() === '') return null;
  let declaration: unknown;
  try {
    declaration = JSON.parse(text);
  } catch (error) {
    return `Authorization details types is not valid JSON: ${(error as Error).message}`;
  }
  return declarationProblem(jsonSchemas(deps), declaration);
}

function declarationOf(text: string): AuthorizationDetailsTypes {
  return text.trim() === '' ? {} : storedDeclaration(JSON.stringify(JSON.parse(text)));
}

/** Registers a resource. Throws ResourceInvalid, a taken URI included. */
export async function createResource(deps: OAuthDeps, fields: ResourceFields): Promise<ResourceRecord> {
  const input = await validated(deps, fields);
  return withUriTaken(() => deps.stores.resources.create(input));
}

/**
 * Changes the fields given (PATCH semantics: those left out keep their value); every rule is checked again on
 * the result. Tokens issued for the old URI keep it as their audience. Null when there is no such resource.
 */
export async function updateResource(deps: OAuthDeps, id: number, changes: Partial<ResourceFields>): Promise<ResourceRecord | null> {
  const current = await deps.stores.resources.findById(id);
  if (!current) return null;
  const given = Object.fromEntries(Object.entries(changes).filter(([, value]) => value !== undefined));
  const input = await validated(deps, { ...resourceFieldsOf(current), ...given });
  return withUriTaken(() => deps.stores.resources.update(id, input));
}

async function withUriTaken<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof ResourceUriTaken) throw new ResourceInvalid({ uri: [URI_TAKEN] });
    throw error;
  }
}

export function listResources(deps: OAuthDeps): Promise<ResourceRecord[]> {
  return deps.stores.resources.list();
}

export function findResource(deps: OAuthDeps, id: number): Promise<ResourceRecord | null> {
  return deps.stores.resources.findById(id);
}

/** By exact URI (what clients send as `resource`). */
export async function findResourceByUri(deps: OAuthDeps, uri: string): Promise<ResourceRecord | null> {
  return (await deps.stores.resources.findByUris([uri]))[0] ?? null;
}

/**
 * Unregisters the resource: requests naming it get invalid_target from now on. Tokens already issued keep it
 * as their audience until they expire or are revoked. False when there was none.
 */
export function deleteResource(deps: OAuthDeps, id: number): Promise<boolean> {
  return deps.stores.resources.delete(id);
}

/** The resource as the admin JSON API and `resources --json` show it (flat snake_case fields). */
export function resourceAttributes(resource: ResourceRecord) {
  return {
    id: resource.id,
    uri: resource.uri,
    name: resource.name,
    scopes: resource.scopes.join(' '),
    token_format: resource.tokenFormat,
    access_token_lifetime: resource.accessTokenLifetime,
    server_client_id: resource.serverClientId,
    authorization_details_types: resource.authorizationDetailsTypes,
    created_at: resource.createdAt.toISOString(),
    updated_at: resource.updatedAt.toISOString(),
  };
}

export type ResourceAttributes = ReturnType<typeof resourceAttributes>;
