import fp from 'fastify-plugin';

// Shapes shared by several routes, registered once by $id (STYLE 3) and referenced as { $ref: 'oauthError#' }.

export const oauthErrorSchema = {
  $id: 'oauthError',
  type: 'object',
  description: 'RFC 6749 section 5.2 error response.',
  properties: { error: { type: 'string' }, error_description: { type: 'string' } },
  required: ['error', 'error_description'],
} as const;

export const tokenResponseSchema = {
  $id: 'tokenResponse',
  type: 'object',
  description: 'RFC 6749 section 5.1 token response; beforeTokenResponse may add fields.',
  properties: {
    access_token: { type: 'string' },
    // N_A: RFC 8693 section 2.2.1, a token exchange that issued something other than an access token (an ID-JAG).
    token_type: { type: 'string', enum: ['Bearer', 'DPoP', 'N_A'] },
    expires_in: { type: 'integer' },
    refresh_token: { type: 'string' },
    scope: { type: 'string' },
    created_at: { type: 'integer' },
    id_token: { type: 'string', description: 'OpenID Connect: when openid was granted (code exchange and refresh).' },
    issued_token_type: { type: 'string', description: 'RFC 8693: what a token exchange issued.' },
  },
  // Not created_at: fast-json-stringify writes required keys first, and the reference's order (5.2) has it last.
  required: ['access_token', 'token_type'],
  additionalProperties: true,
} as const;

export const introspectionResponseSchema = {
  $id: 'introspectionResponse',
  type: 'object',
  description: 'RFC 7662 section 2.2; exactly {"active": false} when inactive.',
  properties: {
    active: { type: 'boolean' },
    scope: { type: 'string' },
    client_id: { type: 'string' },
    token_type: { type: 'string' },
    iat: { type: 'integer' },
    exp: { type: 'integer' },
    auth_time: { type: 'integer', description: 'RFC 9470 section 6.1: when the user signed in.' },
    acr: { type: 'string', description: 'RFC 9470 section 6.1: the level of that sign-in.' },
    amr: { type: 'array', items: { type: 'string' }, description: 'RFC 8176: how the user signed in.' },
  },
  required: ['active'],
  additionalProperties: true,
} as const;

/** Every OAuth error status a route of the API group may answer, all with the same body. */
export const oauthErrorResponses = {
  400: { $ref: 'oauthError#' },
  401: { $ref: 'oauthError#' },
  403: { $ref: 'oauthError#' },
  413: { $ref: 'oauthError#' },
  415: { $ref: 'oauthError#' },
  429: { $ref: 'oauthError#' },
  500: { $ref: 'oauthError#' },
  503: { $ref: 'oauthError#' },
} as const;

/** A form body: any parameters (unknown ones are ignored, RFC 6749 section 3.1); shape checked by readParameters. */
export const formBodySchema = (properties: Record<string, string>) => ({
  type: 'object',
  properties: Object.fromEntries(Object.entries(properties).map(([name, description]) => [name, { type: 'string', description }])),
});

/**
 * The same, without types: every value reaches the rules that judge it (a repeated parameter is their
 * invalid_request with its own words; a repeatable one, RFC 8707's resource, is not refused by a schema).
 */
export const untypedFormBodySchema = (properties: Record<string, string>) => ({
  type: 'object',
  properties: Object.fromEntries(Object.entries(properties).map(([name, description]) => [name, { description }])),
});

export const sharedSchemasPlugin = fp(
  async (app) => {
    app.addSchema(oauthErrorSchema);
    app.addSchema(tokenResponseSchema);
    app.addSchema(introspectionResponseSchema);
  },
  { name: 'shared-schemas' },
);
