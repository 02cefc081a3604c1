// config `registration` (RFC 7591 / RFC 7592 and Client ID Metadata Documents, issue 19): how clients that no admin
// created may arrive. Part of config/schema.ts.

export const REGISTRATION_POLICIES = ['off', 'initialAccessToken', 'open'] as const;

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
      description: 'Development only: fetch documents from loopback, private and link-local addresses.',
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
