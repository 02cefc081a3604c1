// Schemas of the admin's resource routes (STYLE 3): every request part and every response status, for the HTML
// pages and the JSON API alike. JSON bodies are serialized through resourceJsonSchema.

export const resourceJsonSchema = {
  $id: 'adminResource',
  type: 'object',
  description: 'An API registered as a resource (RFC 8707), as the admin JSON API shows it.',
  properties: {
    id: { type: 'integer' },
    uri: { type: 'string', description: 'The resource indicator: an absolute URI, compared exactly.' },
    name: { type: 'string' },
    scopes: { type: 'string', description: 'The scopes it accepts, space-separated.' },
    token_format: { type: 'string', enum: ['opaque', 'jwt'], description: 'Its access tokens: opaque or JWT (RFC 9068).' },
    access_token_lifetime: {
      anyOf: [{ type: 'integer' }, { type: 'null' }],
      description: 'Seconds; null for the server default (accessTokenExpiresIn).',
    },
    server_client_id: {
      anyOf: [{ type: 'string' }, { type: 'null' }],
      description: 'The client_id of the API itself, which may introspect the tokens meant for it.',
    },
    created_at: { type: 'string', format: 'date-time' },
    updated_at: { type: 'string', format: 'date-time' },
  },
  required: ['id', 'uri', 'name', 'scopes', 'token_format', 'access_token_lifetime', 'server_client_id', 'created_at', 'updated_at'],
  additionalProperties: false,
} as const;

const validationErrors = {
  type: 'object',
  description: 'Validation failed: full English messages.',
  properties: { errors: { type: 'array', items: { type: 'string' } } },
  required: ['errors'],
} as const;

const htmlPage = { type: 'string', description: 'An HTML page.' } as const;
const redirect = { type: 'null', description: 'Redirect (302/303) to the next page, with a notice in the session.' } as const;
const noContent = { type: 'null', description: 'Deleted.' } as const;

/** One status answered as an HTML page or, to Accept: application/json, as JSON. */
const pageOrJson = (json: object) => ({ content: { 'text/html': { schema: htmlPage }, 'application/json': { schema: json } } });

const errorStatuses = Object.fromEntries(
  [400, 401, 403, 404, 413, 415, 429].map((status) => [status, pageOrJson({ $ref: 'oauthError#' })]),
);

export const idParams = {
  type: 'object',
  // A non-numeric id is a validation error in the params, which the group's error handler answers with 404.
  properties: { id: { type: 'string', pattern: '^[1-9][0-9]{0,14}$', description: 'The resource id.' } },
  required: ['id'],
} as const;

const csrfField = { type: 'string', description: 'CSRF token of the HTML form.' } as const;
// Any string or number: the domain names what it takes (422 with a message), which a schema type (400) would not.
const text = (description: string) => ({ type: 'string', description }) as const;
const textOrNull = (description: string) => ({ anyOf: [{ type: 'null' }, { type: 'string' }], description }) as const;

const resourceFields = {
  uri: text('The resource indicator (RFC 8707): an absolute URI without a fragment; https, or http on a loopback IP.'),
  name: text('A display name; optional.'),
  scopes: { anyOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' } }], description: 'Space-separated (or a JSON array).' },
  token_format: textOrNull('opaque (the default) or jwt (RFC 9068; needs openid.enabled).'),
  access_token_lifetime: {
    // null first: Ajv's type coercion would otherwise turn it into 0 for the integer branch.
    anyOf: [{ type: 'null' }, { type: 'integer' }, { type: 'string' }],
    description: 'Seconds, 60 to 86400; null or "" for the server default.',
  },
  server_client_id: textOrNull('The client_id of a registered application (the API itself); null or "" for none.'),
  _csrf: csrfField,
} as const;

/** Unknown fields (id, timestamps, ...) are stripped: nothing else can be mass-assigned. */
export const resourceBody = { type: 'object', properties: resourceFields, additionalProperties: false } as const;

export const methodOverrideBody = {
  type: 'object',
  properties: {
    ...resourceFields,
    _method: { type: 'string', enum: ['patch', 'put', 'delete', 'PATCH', 'PUT', 'DELETE'], description: 'HTML forms can only POST.' },
  },
  required: ['_method'],
  additionalProperties: false,
} as const;

export const responses = {
  page: { 200: htmlPage, ...errorStatuses },
  index: { 200: pageOrJson({ type: 'array', items: { $ref: 'adminResource#' } }), ...errorStatuses },
  show: { 200: pageOrJson({ $ref: 'adminResource#' }), ...errorStatuses },
  create: { 201: { $ref: 'adminResource#' }, 302: redirect, 422: pageOrJson(validationErrors), ...errorStatuses },
  update: { 200: { $ref: 'adminResource#' }, 302: redirect, 303: redirect, 422: pageOrJson(validationErrors), ...errorStatuses },
  destroy: { 204: noContent, 302: redirect, 303: redirect, ...errorStatuses },
};

export const methodOverrideResponses = { ...responses.update, ...responses.destroy };
