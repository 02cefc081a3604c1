import type { ResourceFields } from '../../../oauth/resources/resources.js';
import { boundedJson } from '../../../oauth/json-nesting.js';

/** The flat fields of the admin form and JSON API, as the route schema lets them through. */
export interface ResourceBody {
  uri?: string;
  name?: string;
  scopes?: string | string[];
  token_format?: string | null;
  access_token_lifetime?: number | string | null;
  server_client_id?: string | null;
  /** RFC 9396: the declaration as JSON text (the form's textarea), or as JSON itself (the JSON API); null for none. */
  authorization_details_types?: string | Record<string, unknown> | null;
  _csrf?: string;
  _method?: string;
}

/**
 * The domain's fields from a form or JSON body; a field that was not sent stays undefined (on update it keeps its
 * value, on create it is empty). JSON's null means empty: the default format, the server's lifetime, no server client.
 */
export function changesFromBody(body: ResourceBody | undefined): Partial<ResourceFields> {
  const scopes = body?.scopes;
  return {
    uri: body?.uri,
    name: body?.name,
    scopes: Array.isArray(scopes) ? scopes.join(' ') : scopes,
    tokenFormat: emptyIfNull(body?.token_format),
    accessTokenLifetime: emptyIfNull(body?.access_token_lifetime),
    serverClientId: emptyIfNull(body?.server_client_id),
    authorizationDetailsTypes: declarationText(body?.authorization_details_types),
  };
}

function declarationText(value: ResourceBody['authorization_details_types']): string | undefined {
  return value === null ? '' : typeof value === 'object' ? boundedJson(value) : value;
}

/** The fields of a new resource: what was sent, the rest empty. */
export function fieldsFromBody(body: ResourceBody | undefined): ResourceFields {
  const changes = changesFromBody(body);
  return {
    uri: changes.uri ?? '',
    name: changes.name ?? '',
    scopes: changes.scopes ?? '',
    tokenFormat: changes.tokenFormat ?? '',
    accessTokenLifetime: changes.accessTokenLifetime ?? '',
    serverClientId: changes.serverClientId ?? '',
    authorizationDetailsTypes: changes.authorizationDetailsTypes ?? '',
  };
}

function emptyIfNull(value: string | number | null | undefined): string | undefined {
  return value === null ? '' : value === undefined ? undefined : String(value);
}
