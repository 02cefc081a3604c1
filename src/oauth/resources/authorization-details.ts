import { isDeepStrictEqual } from 'node:util';
import type { OAuthDeps } from '../deps.js';
import { InvalidAuthorizationDetails } from '../errors.js';
import { NESTED_TOO_DEEPLY, nestedTooDeeply } from '../json-nesting.js';
import type { ResourceRecord } from '../store.js';
import type { AuthorizationDetail, DetailSchema, JsonSchemaChecker } from './authorization-details-schemas.js';

// RFC 9396 (rich authorization requests): the authorization_details parameter at the authorization endpoint, PAR and
// the token endpoint. Section 5: each object has a `type` that a registered resource serves, and passes that type's
// JSON Schema; anything else is invalid_authorization_details, naming the object and the problem. The resources serving
// the types become part of the token's audience (section 9.1), as a `resource` parameter would make them; an object's
// `locations` (section 2.2) names which of them, else every resource serving its type.

export type { AuthorizationDetail } from './authorization-details-schemas.js';

/** Validated details and the resources they are for (to join the audience). */
export interface GrantedDetails {
  details: AuthorizationDetail[];
  resources: ResourceRecord[];
}

export const NO_DETAILS: GrantedDetails = { details: [], resources: [] };

const invalid = (problem: string) => new InvalidAuthorizationDetails(problem);
const which = (index: number) => `authorization_details[${index}]`;

/** Section 2: a JSON array of objects, each with a string `type`. Throws InvalidAuthorizationDetails. */
export function parseAuthorizationDetails(text: string): AuthorizationDetail[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw invalid('authorization_details is not valid JSON.');
  }
  if (!Array.isArray(parsed)) throw invalid('authorization_details must be a JSON array of objects.');
  if (parsed.length === 0) throw invalid('authorization_details must name at least one object.');
  if (nestedTooDeeply(parsed)) throw invalid(`authorization_details is ${NESTED_TOO_DEEPLY}.`);
  parsed.forEach((item: unknown, index) => {
    if (typeof item !== 'object' || item === null || Array.isArray(item)) throw invalid(`${which(index)} is not a JSON object.`);
    const { type } = item as Record<string, unknown>;
    if (type === undefined) throw invalid(`${which(index)} has no type.`);
    if (typeof type !== 'string' || type === '') throw invalid(`${which(index)} has a type that is not a non-empty string.`);
  });
  return parsed as AuthorizationDetail[];
}

/**
 * The parameter as sent (undefined or '' for none), checked against the resources that serve its types (section 5).
 * Throws InvalidAuthorizationDetails.
 */
export async function resolveAuthorizationDetails(
  deps: Pick<OAuthDeps, 'stores' | 'jsonSchemas'>,
  text: string | undefined,
): Promise<GrantedDetails> {
  if (text === undefined || text === '') return NO_DETAILS;
  const details = parseAuthorizationDetails(text);
  // Resources are few (an operator registers each): read them all rather than index their types.
  const registered = await deps.stores.resources.list();
  const audience = new Map<string, ResourceRecord>();
  for (const [index, detail] of details.entries()) {
    const serving = registered.filter((resource) => Object.hasOwn(resource.authorizationDetailsTypes, detail.type));
    if (serving.length === 0) throw invalid(`${which(index)} has the type ${JSON.stringify(detail.type)}, which no resource here serves.`);
    for (const resource of serving) await requireSchema(deps, resource.authorizationDetailsTypes[detail.type]!.schema, detail, index);
    for (const resource of locatedAt(detail, serving, index)) audience.set(resource.uri, resource);
  }
  return { details, resources: [...audience.values()] };
}

async function requireSchema(
  deps: Pick<OAuthDeps, 'jsonSchemas'>,
  schema: DetailSchema | null,
  detail: AuthorizationDetail,
  index: number,
) {
  if (schema === null) return;
  const problem = await jsonSchemas(deps).problem(schema, detail);
  if (problem !== null) throw invalid(`${which(index)} (${detail.type}) does not match its schema: ${problem}.`);
}

/** The JSON Schema checker the service and the CLI give the domain (OAuthDeps.jsonSchemas). */
export function jsonSchemas(deps: Pick<OAuthDeps, 'jsonSchemas'>): JsonSchemaChecker {
  if (!deps.jsonSchemas) throw new Error('OAuthDeps.jsonSchemas is needed to check authorization_details schemas');
  return deps.jsonSchemas;
}

// Section 2.2: `locations` names the resources the object is for, each one that serves its type.
function locatedAt(detail: AuthorizationDetail, serving: ResourceRecord[], index: number): ResourceRecord[] {
  const { type, locations } = detail;
  if (locations === undefined) return serving;
  if (!Array.isArray(locations) || locations.length === 0 || !locations.every((location) => typeof location === 'string')) {
    throw invalid(`${which(index)} has locations that are not a non-empty array of strings.`);
  }
  return locations.map((location) => {
    const resource = serving.find((candidate) => candidate.uri === location);
    if (!resource) throw invalid(`${which(index)} names the location ${location}, which is no resource serving ${type}.`);
    return resource;
  });
}

/**
 * Section 6.2 at refresh (and a code exchange): the details asked for may only narrow those granted, each one equal
 * (deeply, field for field) to a granted object no other one asked for has taken: each object is one authorization
 * (section 2), so a payment granted once cannot be asked for twice. None asked for keeps them all. Throws
 * InvalidAuthorizationDetails.
 */
export function narrowedDetails(text: string | undefined, granted: readonly AuthorizationDetail[]): AuthorizationDetail[] {
  if (text === undefined || text === '') return [...granted];
  const requested = parseAuthorizationDetails(text);
  const unclaimed = [...granted];
  requested.forEach((detail, index) => {
    const match = unclaimed.findIndex((held) => isDeepStrictEqual(held, detail));
    if (match === -1) {
      const already = granted.some((held) => isDeepStrictEqual(held, detail));
      throw invalid(
        already
          ? `${which(index)} (${detail.type}) is asked for more often than it was granted: each object granted may be asked for once.`
          : `${which(index)} (${detail.type}) was not granted: a token request may only ask for authorization_details granted before.`,
      );
    }
    unclaimed.splice(match, 1);
  });
  return requested;
}

/** The stored form (JSON text, or null for none) of details, and back. */
export function detailsJson(details: readonly AuthorizationDetail[]): string | null {
  return details.length === 0 ? null : JSON.stringify(details);
}

export function storedDetails(json: string | null): AuthorizationDetail[] {
  return json === null || json === '' ? [] : (JSON.parse(json) as AuthorizationDetail[]);
}

/** Discovery's authorization_details_types_supported (section 10): the union of the types the resources serve. */
export async function authorizationDetailsTypesSupported(deps: Pick<OAuthDeps, 'stores'>): Promise<string[]> {
  const resources = await deps.stores.resources.list();
  return [...new Set(resources.flatMap((resource) => Object.keys(resource.authorizationDetailsTypes)))].sort();
}
