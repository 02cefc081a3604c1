import type { OAuthDeps } from '../../../oauth/deps.js';
import {
  declarationText,
  MAX_LIFETIME,
  MIN_LIFETIME,
  type ResourceFieldErrors,
  type ResourceFields,
} from '../../../oauth/resources/resources.js';
import type { ApplicationRecord, ResourceRecord } from '../../../oauth/store.js';
import { adminTime } from '../../page-time.js';

// Small view models for views/resources/*.eta (STYLE 14): the handlers decide, the templates print.

export const INDEX_PATH = '/oauth/resources';
export const showPath = (id: number) => `${INDEX_PATH}/${id}`;

type Config = OAuthDeps['config'];

const TOKEN_FORMATS = [
  { value: 'opaque', label: 'Opaque' },
  { value: 'jwt', label: 'JWT (RFC 9068)' },
];
const formatLabel = (format: string) => TOKEN_FORMATS.find(({ value }) => value === format)?.label ?? format;
const displayName = (resource: ResourceRecord) => resource.name || resource.uri;

export function indexView(resources: ResourceRecord[]) {
  return {
    title: 'Resources',
    navResources: true,
    resources: resources.map((resource) => ({
      id: resource.id,
      name: displayName(resource),
      uri: resource.uri,
      scopes: resource.scopes.join(' '),
      tokenFormat: formatLabel(resource.tokenFormat),
      href: showPath(resource.id),
    })),
  };
}

/** The new and edit forms; `fields` are what was typed, so a form with errors keeps them. */
export function formView(
  config: Config,
  fields: ResourceFields,
  options: { resource?: ResourceRecord; errors?: ResourceFieldErrors } = {},
) {
  const { resource, errors = {} } = options;
  const field = (name: keyof ResourceFieldErrors, label: string, value: string, help: string) => {
    const id = `resource_${name}`;
    const messages = (errors[name] ?? []).map((message) => bare(message, label));
    const describedBy = [`${id}_help`, messages.length > 0 && `${id}_errors`].filter(Boolean).join(' ');
    return { id, name, label, value, help, errors: messages, describedBy };
  };
  const serverScopes = [...config.defaultScopes, ...config.optionalScopes].join(' ');
  const format = fields.tokenFormat.trim() || 'opaque';
  return {
    title: resource ? `Edit ${displayName(resource)}` : 'New resource',
    navResources: true,
    action: resource ? showPath(resource.id) : INDEX_PATH,
    // HTML forms can only POST; the update route reads _method.
    method: resource ? 'patch' : null,
    cancelHref: resource ? showPath(resource.id) : INDEX_PATH,
    hasErrors: Object.keys(errors).length > 0,
    fields: [
      field(
        'uri',
        'URI',
        fields.uri,
        'The resource indicator clients send as resource (RFC 8707): an absolute URI without a fragment, such as https://api.example.com. Compared exactly.',
      ),
      field('name', 'Name', fields.name, 'Optional: how these pages name it.'),
      field(
        'scopes',
        'Scopes',
        fields.scopes,
        `The scopes this API accepts, separated with spaces: any of ${serverScopes || '(none configured)'}.`,
      ),
      // The select is printed from `tokenFormat`; this entry keeps its place in the form.
      field('token_format', 'Token format', format, ''),
      field(
        'access_token_lifetime',
        'Access token lifetime',
        fields.accessTokenLifetime,
        `Seconds, ${MIN_LIFETIME} to ${MAX_LIFETIME}. Leave it empty for the server default (${defaultLifetime(config)}).`,
      ),
      field(
        'server_client_id',
        'Server client ID',
        fields.serverClientId,
        "Optional: the client_id (UID) of the API's own application, which may then introspect the tokens meant for this resource.",
      ),
      // Printed as a textarea (_form.eta): JSON over several lines.
      field(
        'authorization_details_types',
        'Authorization details types',
        fields.authorizationDetailsTypes ?? '',
        'Optional (RFC 9396): the authorization_details types this API serves, as JSON: {"payment_initiation": {"schema": {JSON Schema}, "consent": "Pay {{instructedAmount.amount}} {{instructedAmount.currency}} to {{creditorName}}"}}. The consent text may be one per language ({"en": "...", "de": "..."}); without one the consent page lists the fields.',
      ),
    ],
    tokenFormat: {
      options: TOKEN_FORMATS.map(({ value, label }) => ({ value, label, selected: value === format })),
      errors: (errors.token_format ?? []).map((message) => bare(message, 'Token format')),
      note: config.openid.enabled
        ? 'JWT access tokens are signed with the OpenID Connect keys: the API checks them without calling this server.'
        : 'JWT access tokens need signing keys: OpenID Connect is not enabled on this server (config openid.enabled).',
    },
  };
}

/** `server`: the application whose client_id is the resource's server client, when it exists. */
export function showView(config: Config, resource: ResourceRecord, server: ApplicationRecord | null) {
  const base = showPath(resource.id);
  return {
    title: `Resource: ${displayName(resource)}`,
    navResources: true,
    resource: {
      name: resource.name,
      uri: resource.uri,
      scopes: resource.scopes.join(' '),
      tokenFormat: formatLabel(resource.tokenFormat),
      lifetime:
        resource.accessTokenLifetime === null ? `Server default (${defaultLifetime(config)})` : `${resource.accessTokenLifetime} seconds`,
      serverClientId: resource.serverClientId,
      serverHref: server ? `/oauth/applications/${server.id}` : null,
      serverName: server?.name ?? null,
      authorizationDetailsTypes: declarationText(resource.authorizationDetailsTypes),
      createdAt: adminTime(resource.createdAt),
      updatedAt: adminTime(resource.updatedAt),
    },
    actions: { editHref: `${base}/edit`, deleteHref: `${base}/delete` },
  };
}

export function deleteView(resource: ResourceRecord) {
  return {
    title: `Delete ${displayName(resource)}?`,
    navResources: true,
    name: displayName(resource),
    uri: resource.uri,
    action: showPath(resource.id),
    cancelHref: showPath(resource.id),
  };
}

function defaultLifetime(config: Config): string {
  return config.accessTokenExpiresIn === null ? 'tokens never expire' : `${config.accessTokenExpiresIn} seconds`;
}

// Beside its field a message goes without the field's name, capitalised ("Can't be blank").
function bare(message: string, label: string): string {
  const text = message.startsWith(`${label} `) ? message.slice(label.length + 1) : message;
  return text.charAt(0).toUpperCase() + text.slice(1);
}
