// config `registration` (RFC 7591 / RFC 7592 and Client ID Metadata Documents, issue 19): how clients that no admin
// created may arrive. Part of config/schema.ts.

export const REGISTRATION_POLICIES = ['off', 'initialAccessToken', 'open'] as const;
// RFC 9700 section 2.1.2: no implicit grant; the password grant is for clients an admin vetted.
export const REGISTRABLE_GRANT_TYPES = [
  'authorization_code',
  'refresh_token',
  'client_credentials',
  'urn:ietf:params:oauth:grant-type:device_code',
] as const;

const clientIdMetadataDocumentsSchema = {
  type: 'object',
  additionalProperties: false,
  default: {},
  description: 'Client ID Metadata Documents: an https URL as client_id, whose JSON metadata this server fetches.',
  properties: {
    enabled: {
      type: 'boolean',
      default: false,
      description: 'Accept https URLs as client_id and advertise client_id_metadata_document_supported.',
    },
    allowPrivateAddresses: {
      type: 'boolean',
      default: false,
      description:
        'Development only (refused when NODE_ENV is production): fetch documents, and sector_identifier_uri, from loopback, private and link-local addresses.',
    },
    maxBytes: {
      type: 'integer',
      minimum: 256,
      maximum: 1048576,
      default: 5120,
      description: 'A larger document is refused.',
    },
    timeoutMs: {
      type: 'integer',
      minimum: 100,
      maximum: 60000,
      default: 5000,
      description: 'The whole fetch (connect, headers and body) must end within this time.',
    },
    maxCacheSeconds: {
      type: 'integer',
      minimum: 0,
      default: 86400,
      description: 'The longest a fetched document is used before it is fetched again, whatever its Cache-Control says.',
    },
    firstFetchesPerAddressPerMinute: {
      type: 'integer',
      minimum: 0,
      default: 10,
      description:
        'Documents of client_id URLs not stored yet that one client address (IPv6: its /64) may make this server fetch per minute, counted by each instance (0: no limit); past it the client is refused without a fetch.',
    },
    maxClients: {
      type: 'integer',
      minimum: 0,
      default: 1000,
      description:
        'How many clients made from metadata documents may exist at once (counted like maxOpenRegistrations, apart from it); past it a new client_id URL is refused without a fetch, while stored ones keep working.',
    },
  },
} as const;

export const registrationSchema = {
  type: 'object',
  additionalProperties: false,
  default: {},
  description: 'Dynamic client registration (RFC 7591) and management (RFC 7592) at /oauth/register.',
  properties: {
    policy: {
      enum: [...REGISTRATION_POLICIES],
      default: 'off',
      description:
        'off: no registration endpoint; initialAccessToken: registering needs a token from `oauth-service registration-tokens create`; open: anyone may register a client (RFC 7591 section 3).',
    },
    allowedScopes: {
      type: ['array', 'null'],
      items: { type: 'string', pattern: '^[\\x21\\x23-\\x5B\\x5D-\\x7E]+$' },
      uniqueItems: true,
      default: null,
      description:
        'The scopes a self-registered client (RFC 7591, or a Client ID Metadata Document) may register and hold; each must be one of defaultScopes or optionalScopes. A registration asking for another is refused (invalid_client_metadata). null: defaultScopes, plus openid profile email address phone while openid.enabled, and offline_access too while grantFlows includes refresh_token. Scopes an initial access token allows (registration-tokens create --scopes) come on top for the clients registered with it.',
    },
    allowedGrantTypes: {
      type: 'array',
      items: { enum: [...REGISTRABLE_GRANT_TYPES] },
      uniqueItems: true,
      default: ['authorization_code', 'refresh_token'],
      description:
        'The grant types a self-registered client may register and use (the device grant, urn:ietf:params:oauth:grant-type:device_code, while grantFlows lists it). client_credentials also needs the operator for each client: an initial access token that allows it (registration-tokens create --grant-types client_credentials), or `apps approve`; until then its token requests get unauthorized_client.',
    },
    maxOpenRegistrations: {
      type: 'integer',
      minimum: 0,
      default: 1000,
      description:
        'How many clients registered at /oauth/register may exist at once (under either policy), counting only live ones: used, approved, or registered less than unusedClientLifetimeSeconds ago; beyond it registration is refused with invalid_client_metadata. A warn line and the metric oauth_registration_cap_ratio tell when it is 80% full.',
    },
    perAddressPerMinute: {
      type: 'integer',
      minimum: 0,
      default: 10,
      description:
        'Registration requests one client address (IPv6: its /64) may make per minute, counted by each instance (0: no limit); more are answered 429 with Retry-After.',
    },
    unusedClientLifetimeSeconds: {
      type: 'integer',
      minimum: 60,
      default: 3600,
      description:
        'A self-registered client (RFC 7591 or metadata document) never issued a token this long after registering, and not approved by an admin, expires: it is an unknown client, no longer counts against maxOpenRegistrations or clientIdMetadataDocuments.maxClients, and is deleted (a few at each registration, and by `oauth-service tokens cleanup`).',
    },
    clientIdMetadataDocuments: clientIdMetadataDocumentsSchema,
  },
} as const;
