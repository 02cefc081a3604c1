import { formBody, methodOverrideFormBody, pageAndJsonResponses, recordIdParams, textOrList } from '../../admin-schemas.js';

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
    authorization_details_types: {
      type: 'object',
      additionalProperties: true,
      description:
        'RFC 9396: the authorization_details types it serves, {"TYPE": {"schema": JSON Schema or null, "consent": text or null}}.',
    },
    created_at: { type: 'string', format: 'date-time' },
    updated_at: { type: 'string', format: 'date-time' },
  },
  required: [
    'id',
    'uri',
    'name',
    'scopes',
    'token_format',
    'access_token_lifetime',
    'server_client_id',
    'authorization_details_types',
    'created_at',
    'updated_at',
  ],
  additionalProperties: false,
} as const;

// Any string or number: the domain names what it takes (422 with a message), which a schema type (400) would not.
const text = (description: string) => ({ type: 'string', description }) as const;
const textOrNull = (description: string) => ({ anyOf: [{ type: 'null' }, { type: 'string' }], description }) as const;

const resourceFields = {
  uri: text('The resource indicator (RFC 8707): an absolute URI without a fragment; https, or http on a loopback IP.'),
  name: text('A display name; optional.'),
  scopes: textOrList('Space-separated (or a JSON array).'),
  token_format: textOrNull('opaque (the default) or jwt (RFC 9068; needs openid.enabled).'),
  access_token_lifetime: {
    // null first: Ajv's type coercion would otherwise turn it into 0 for the integer branch.
    anyOf: [{ type: 'null' }, { type: 'integer' }, { type: 'string' }],
    description: 'Seconds, 60 to 86400; null or "" for the server default.',
  },
  server_client_id: textOrNull('The client_id of a registered application (the API itself); null or "" for none.'),
  authorization_details_types: {
    anyOf: [{ type: 'null' }, { type: 'object' }, { type: 'string' }],
    description:
      'RFC 9396: {"TYPE": {"schema": {...}, "consent": "Pay {{amount}}"}} as JSON (or its text, as the form sends it); null or "" for none.',
  },
} as const;

export const idParams = recordIdParams('resource');

/** Unknown fields (id, timestamps, ...) are stripped: nothing else can be mass-assigned. */
export const resourceBody = formBody(resourceFields);
export const methodOverrideBody = methodOverrideFormBody(resourceFields, ['patch', 'put', 'delete']);

export const responses = pageAndJsonResponses('adminResource');
export const methodOverrideResponses = { ...responses.update, ...responses.destroy };
