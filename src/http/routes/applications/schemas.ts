import type { ApplicationListFilter } from '../../../oauth/clients/applications.js';
import {
  formCheckbox,
  formBody,
  methodOverrideFormBody,
  pageAndJsonResponses,
  pageOrJsonErrors,
  recordIdParams,
  redirect,
  textOrList,
  validationErrors,
} from '../../admin-schemas.js';

export { csrfOnlyBody } from '../../admin-schemas.js';

/** The approve form: the reviewed fields' fingerprint of the page it was on (issue 29 item 3), when sent from one. */
export const approveBody = formBody({
  reviewed: {
    type: 'string',
    maxLength: 100,
    description: 'The reviewed-metadata fingerprint the show page carried; a changed client is not approved.',
  },
});

// Schemas of the admin routes (STYLE 3): every request part and every response status, for the HTML pages
// and the JSON API alike. HTML pages are strings and skip serialization; JSON bodies are serialized through
// these schemas, so a field that is not listed here (such as a stored secret hash) can never be sent.

const algorithmOrNull = (description: string) =>
  ({ anyOf: [{ type: 'string', enum: ['RS256', 'ES256', 'EdDSA'] }, { type: 'null' }], description }) as const;

const clientText = (description: string) => ({ anyOf: [{ type: 'string' }, { type: 'null' }], description }) as const;
const dateOrNull = (description: string) => ({ anyOf: [{ type: 'string', format: 'date-time' }, { type: 'null' }], description }) as const;

const applicationJsonProperties = {
  id: { type: 'integer' },
  name: { type: 'string' },
  uid: { type: 'string', description: 'The client_id.' },
  secret: {
    type: 'string',
    description: 'The plain client secret: only right after create, rotate, or an update that made the client confidential.',
  },
  redirect_uri: { type: 'string', description: 'Registered redirect URIs, one per line.' },
  scopes: { type: 'array', items: { type: 'string' } },
  confidential: { type: 'boolean' },
  post_logout_redirect_uris: {
    type: 'array',
    items: { type: 'string' },
    description: 'Where RP-Initiated Logout may send the user back to (exact match); OpenID Connect only.',
  },
  backchannel_logout_uri: clientText('Back-Channel Logout 1.0: where logout tokens are POSTed when a session ends; null: none.'),
  backchannel_logout_session_required: {
    type: 'boolean',
    description: 'Back-Channel Logout 1.0 section 2.2: each of its logout tokens must name the login session (sid).',
  },
  id_token_signed_response_alg: algorithmOrNull('How ID tokens for this client are signed; null is RS256.'),
  userinfo_signed_response_alg: algorithmOrNull('How UserInfo answers this client: null is plain JSON, an algorithm a signed JWT.'),
  access_token_format: {
    type: 'string',
    enum: ['opaque', 'jwt'],
    description: 'Its access tokens: opaque, or jwt (RFC 9068, signed) when no resource decides the format.',
  },
  dpop_bound_access_tokens: {
    type: 'boolean',
    description: 'RFC 9449 section 5.2: every token request of this client must carry a DPoP proof (bound tokens only).',
  },
  require_pushed_authorization_requests: {
    type: 'boolean',
    description: 'RFC 9126 section 6: its authorization requests must be pushed (POST /oauth/par) first.',
  },
  require_signed_request_object: {
    type: 'boolean',
    description: 'RFC 9101 section 10.5: its authorization requests must be signed request objects.',
  },
  request_object_signing_alg: clientText(
    'OpenID Connect Registration 1.0 section 2: the one algorithm a self-registered client said its request objects are signed with (others are refused); null: any the server accepts.',
  ),
  authorization_signed_response_alg: {
    anyOf: [{ type: 'string', enum: ['RS256', 'ES256', 'EdDSA'] }, { type: 'null' }],
    description: 'JARM section 3: how its JWT-secured authorization responses are signed; null is RS256.',
  },
  profile: {
    type: 'string',
    enum: ['none', 'fapi2'],
    description: 'fapi2: the FAPI 2.0 Security Profile applies to it (docs/behaviour.md 3.21); none: nothing more.',
  },
  refresh_tokens: {
    type: 'string',
    enum: ['always', 'offline_access'],
    description:
      'When its token responses carry a refresh token: always, or only when offline_access was granted (OpenID Connect Core 11).',
  },
  grant_types: {
    type: 'array',
    items: { type: 'string' },
    description:
      'The grant types it may use; []: every grant the server enables but the device grant (RFC 8628), which is used only when named.',
  },
  token_endpoint_auth_method: {
    anyOf: [{ type: 'string' }, { type: 'null' }],
    description:
      'RFC 7591 section 2: how it authenticates (issue 34: private_key_jwt, client_secret_jwt too); null: by its secret, or none when public.',
  },
  token_endpoint_auth_signing_alg: clientText(
    'Registration 1.0 section 2: the one algorithm a self-registered client said its client assertions are signed with (others are refused); null: any the server accepts.',
  ),
  jwks: {
    anyOf: [{ type: 'object', additionalProperties: true }, { type: 'null' }],
    description: "A private_key_jwt client's public keys, a JWK Set; null: none stored.",
  },
  jwks_uri: clientText("Where a private_key_jwt client's JWK Set is fetched; null: none."),
  subject_type: {
    type: 'string',
    enum: ['public', 'pairwise'],
    description: "The sub its users get (OpenID Connect Core 8): the user's own, or pairwise, one of its sector's (Core 8.1).",
  },
  sector_identifier_uri: clientText(
    "A self-registered client's sector_identifier_uri, whose host is its sector; null: its redirect URIs' host.",
  ),
  registered_by: {
    type: 'string',
    enum: ['admin', 'dynamic', 'metadata_document'],
    description:
      'Who made it: an admin, the client itself at /oauth/register (RFC 7591), or the server from its Client ID Metadata Document.',
  },
  client_uri: clientText('RFC 7591 client_uri, as the client supplied it (may be any scheme: link it only if https).'),
  logo_uri: clientText('RFC 7591 logo_uri, as the client supplied it (never shown as an image by this service).'),
  policy_uri: clientText('RFC 7591 policy_uri, as the client supplied it.'),
  tos_uri: clientText('RFC 7591 tos_uri, as the client supplied it.'),
  contacts: { type: 'array', items: { type: 'string' }, description: 'RFC 7591 contacts, as the client supplied them.' },
  approved_at: dateOrNull('When an admin approved this self-registered client; null: nobody did (the consent screen warns).'),
  disabled_at: dateOrNull('When an admin disabled it; null: enabled. A disabled client can be neither authorized nor authenticated.'),
  used_at: dateOrNull('When it was first issued a token; null: never.'),
  created_at: { type: 'string', format: 'date-time' },
  updated_at: { type: 'string', format: 'date-time' },
};

export const applicationJsonSchema = {
  $id: 'adminApplication',
  type: 'object',
  description: 'An OAuth application as the admin JSON API shows it (reference 13, flat fields).',
  properties: applicationJsonProperties,
  // Every field is always there, but the plain secret, shown once (SPEC 3.6).
  required: Object.keys(applicationJsonProperties).filter((field) => field !== 'secret'),
  additionalProperties: false,
} as const;

// JSON: a boolean. HTML form: hidden "0" then checkbox "1" (the last value wins). Another text is refused (400), not
// read as false: {"confidential": "yes"} made a client public. An enum, not type boolean: Ajv coerces types, and
// read null as false.
const checkbox = (description: string, byDefault: 'true' | 'false') =>
  ({
    anyOf: [{ enum: [true, false] }, ...formCheckbox(description).anyOf],
    description: `${description} JSON: a boolean. HTML form: hidden "0" then checkbox "1" (the last value wins). Default ${byDefault}.`,
  }) as const;

const stringOrNull = (description: string) => ({ anyOf: [{ type: 'string' }, { type: 'null' }], description }) as const;

const applicationFields = {
  name: { type: 'string', description: 'Display name; required.' },
  redirect_uri: textOrList('Redirect URIs, one per line (a JSON array is joined with newlines).'),
  scopes: textOrList('Space-separated scopes (or a JSON array).'),
  confidential: checkbox('A confidential client, with a secret.', 'true'),
  post_logout_redirect_uris: textOrList('Post-logout redirect URIs: a JSON array, or one per line.'),
  backchannel_logout_uri: stringOrNull('Back-Channel Logout 1.0: where logout tokens are POSTed (https); null or "" for none.'),
  backchannel_logout_session_required: checkbox('Each logout token must name the login session (sid).', 'false'),
  // Any string: the domain names the algorithms it takes (422), which a schema enum (400) would not.
  id_token_signed_response_alg: stringOrNull('RS256, ES256 or EdDSA; null or "" for the default, RS256.'),
  userinfo_signed_response_alg: stringOrNull('RS256, ES256 or EdDSA for a signed UserInfo; null or "" for plain JSON.'),
  access_token_format: stringOrNull('opaque or jwt (RFC 9068; needs openid.enabled); null or "" for opaque, the default.'),
  dpop_bound_access_tokens: checkbox('RFC 9449 section 5.2: require DPoP-bound tokens.', 'false'),
  require_pushed_authorization_requests: checkbox('RFC 9126 section 6: require pushed authorization requests.', 'false'),
  require_signed_request_object: checkbox('RFC 9101 section 10.5: require signed request objects.', 'false'),
  authorization_signed_response_alg: stringOrNull('JARM: RS256, ES256 or EdDSA; null or "" for the default, RS256.'),
  profile: stringOrNull('none or fapi2 (the FAPI 2.0 Security Profile); null or "" for none, the default.'),
  subject_type: stringOrNull(
    'public or pairwise (OpenID Connect Core 8.1; needs openid.pairwiseSalt); null or "" for public, the default.',
  ),
  refresh_tokens: stringOrNull('always or offline_access (OpenID Connect Core 11); null or "" for always, the default.'),
  grant_types: textOrList(
    'Grant types it may use, space-separated (or a JSON array), each one grantFlows enables; "" for every enabled grant but the device grant (RFC 8628), which a client uses only when named.',
  ),
  token_endpoint_auth_method: stringOrNull(
    'client_secret_basic, client_secret_post, private_key_jwt, client_secret_jwt or none (RFC 7591 section 2); null or "" derives it from confidential.',
  ),
  // The JSON API answers jwks as an object: a script may send back what it read, or the form's JSON text.
  jwks: {
    anyOf: [{ type: 'object', additionalProperties: true }, { type: 'string' }, { type: 'null' }],
    description: 'A JWK Set (an object, or JSON text): the public keys of a private_key_jwt client; null or "" for none.',
  },
  jwks_uri: stringOrNull('An https URL serving the JWK Set of a private_key_jwt client; null or "" for none.'),
} as const;

export const idParams = recordIdParams('application');

/** Which applications the list shows (issue 19); an unknown filter is a 400, not an empty list. */
const APPLICATION_FILTERS: readonly ApplicationListFilter[] = ['self_registered', 'awaiting_approval', 'disabled'];
export const indexQuery = {
  type: 'object',
  properties: {
    filter: {
      type: 'string',
      enum: APPLICATION_FILTERS,
      description: 'self_registered: made by RFC 7591 or a metadata document; awaiting_approval: of those, not approved; disabled.',
    },
  },
  additionalProperties: false,
} as const;

/** Unknown fields (uid, secret, ...) are stripped: nothing else can be mass-assigned (reference 13). */
export const applicationBody = formBody(applicationFields);
export const methodOverrideBody = methodOverrideFormBody(applicationFields, ['patch', 'put', 'delete']);

export const responses = {
  ...pageAndJsonResponses('adminApplication'),
  rotate: { 200: { $ref: 'adminApplication#' }, 302: redirect, 422: validationErrors, ...pageOrJsonErrors },
  /** approve, disable, enable: the application afterwards as JSON, or back to its page with a notice. */
  action: { 200: { $ref: 'adminApplication#' }, 302: redirect, 409: validationErrors, 422: validationErrors, ...pageOrJsonErrors },
};
export const methodOverrideResponses = { ...responses.update, ...responses.destroy };
