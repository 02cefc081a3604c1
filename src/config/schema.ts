// The JSON Schema of config.json (SPEC sections 2 and 5). Every key is optional with a safe default and
// carries a description; the table of docs/configuration.md is generated from it (npm run config:docs) and checked by a test.

import { introspectionSchema } from './introspection-schema.js';
import { authenticationSchema } from './authentication-schema.js';
import { deviceAuthorizationSchema } from './device-authorization-schema.js';
import { pushedAuthorizationRequestsSchema } from './pushed-authorization-requests-schema.js';
import { dpopSchema } from './dpop-schema.js';
import { corsSchema } from './cors-schema.js';
import { hstsSchema } from './hsts-schema.js';
import { metricsSchema } from './metrics-schema.js';
import { rateLimitSchema } from './rate-limit-schema.js';
import { telemetrySchema } from './telemetry-schema.js';
import { auditSchema } from './audit-schema.js';
import { registrationSchema } from './registration-schema.js';
import { openidSchema, signingKeysSchema } from './signing-schema.js';
import { tokenExchangeSchema } from './token-exchange-schema.js';
import { trustedIssuersSchema } from './trusted-issuers-schema.js';
import { identityProvidersSchema } from './identity-providers-schema.js';
import { localizedTextSchema, PAGE_LOCALES } from './page-locales.js';

const scopeList = { type: 'array', items: { type: 'string', pattern: '^[\\x21\\x23-\\x5B\\x5D-\\x7E]+$' }, uniqueItems: true };

export const configSchema = {
  $id: 'https://oauth-service.dev/config.schema.json',
  title: 'oauth-service configuration',
  type: 'object',
  additionalProperties: false,
  properties: {
    $schema: { type: 'string', description: 'Optional path or URL of this schema, for editors.' },
    baseUrl: {
      type: 'string',
      format: 'uri',
      pattern: '^https?://[^?#]+$',
      default: 'http://127.0.0.1:3000',
      description:
        'Public base URL of the service (env BASE_URL); issuer of RFC 8414 metadata and the `iss` of RFC 9207, as written: no query, fragment, user name, password or `.`/`..` path segment. A path (https://auth.example.com/tenant) is for a proxy that strips it before forwarding: the pages, redirects and the Path of the session cookie then carry it.',
    },
    allowInsecureIssuer: {
      type: 'boolean',
      default: false,
      description:
        'true: no warning at boot when NODE_ENV is production and baseUrl (configured, or derived from the listening address) is not https. Only for a deployment whose clients reach it over http on purpose (a closed test network).',
    },
    host: { type: 'string', minLength: 1, default: '127.0.0.1', description: 'Interface to listen on (env HOST).' },
    port: { type: 'integer', minimum: 0, maximum: 65535, default: 3000, description: 'Port to listen on (env PORT).' },
    trustProxy: {
      default: false,
      description:
        'Which X-Forwarded-For hops to believe (env TRUST_PROXY), for client addresses in rate limits and logs: false (none), a number of proxy hops, or the addresses/CIDRs of your proxies (a list, or one comma-separated string). true believes any sender: only when nothing but the proxy can reach the service.',
      anyOf: [
        { type: 'boolean' },
        { type: 'integer', minimum: 1, maximum: 32 },
        // One entry, or several separated by commas: addresses, CIDRs and range names mixed (TRUST_PROXY=loopback,10.0.0.0/8).
        {
          type: 'string',
          minLength: 1,
          pattern:
            '^ *(loopback|linklocal|uniquelocal|[0-9A-Fa-f:.]+(/[0-9]{1,3})?) *(, *(loopback|linklocal|uniquelocal|[0-9A-Fa-f:.]+(/[0-9]{1,3})?) *)*$',
        },
        {
          type: 'array',
          minItems: 1,
          items: { type: 'string', minLength: 1, pattern: '^([0-9A-Fa-f:.]+(/[0-9]{1,3})?|loopback|linklocal|uniquelocal)$' },
        },
      ],
    },
    requestTimeoutSeconds: {
      type: 'integer',
      minimum: 1,
      maximum: 3600,
      default: 30,
      description: 'Time a client has to send a whole request, body included; slower ones are answered 408 and closed (slowloris).',
    },
    hsts: hstsSchema,
    cors: corsSchema,
    metrics: metricsSchema,
    telemetry: telemetrySchema,
    audit: auditSchema,
    dataDir: {
      type: 'string',
      minLength: 1,
      default: './data',
      description: 'Folder of the embedded database, used when no databaseUrl is set (env DATA_DIR).',
    },
    databaseUrl: {
      type: ['string', 'null'],
      pattern: '^postgres(ql)?://',
      default: null,
      description: 'PostgreSQL connection URL (env DATABASE_URL). null: embedded PGlite in dataDir.',
    },
    databaseReadUrl: {
      type: ['string', 'null'],
      pattern: '^postgres(ql)?://',
      default: null,
      description:
        'A streaming replica of databaseUrl that serves introspection and token-info reads (env DATABASE_READ_URL). It must be a synchronous standby of the primary (listed in its synchronous_standby_names); the service then commits with synchronous_commit = remote_apply, so a revoked token is inactive on the replica as soon as the revocation is answered. Reads fall back to the primary while the replica is unreachable. null: all reads on databaseUrl.',
    },
    databasePoolSize: {
      type: 'integer',
      minimum: 1,
      maximum: 500,
      default: 10,
      description: 'Maximum PostgreSQL connections per instance.',
    },
    databasePreparedStatements: {
      type: 'boolean',
      default: true,
      description:
        'Whether the hot queries go as named prepared statements, parsed once per connection (env DATABASE_PREPARED_STATEMENTS=true|false). Set false when databaseUrl goes through a pooler in transaction mode (PgBouncer 1.18 and older, or without max_prepared_statements), where a statement prepared on one server connection is missing on the next: every statement is then sent unnamed. Migrations, which hold a session-level lock, then need databaseDirectUrl.',
    },
    databaseFailoverRetrySeconds: {
      type: 'integer',
      minimum: 0,
      maximum: 60,
      default: 10,
      description:
        "How long a statement that PostgreSQL or PgBouncer refused in a way that proves it wrote nothing (no server, a primary shutting down or turned read-only: a failover or switchover) is sent again before the request is answered 503 (env DATABASE_FAILOVER_RETRY_SECONDS). Cover your switchover: Patroni's took 5-8 s from the command to the first write on a 2-core test machine. A write that may have committed is never sent again. 0: never sent again.",
    },
    databaseDirectUrl: {
      type: ['string', 'null'],
      pattern: '^postgres(ql)?://',
      default: null,
      description:
        "The primary without a transaction-mode pooler in between (for example HAProxy's write port instead of PgBouncer), used for session-level work only: migrations, which take and release their advisory lock on one server session (key rotation and client registration lock within one transaction and need no session) (env DATABASE_DIRECT_URL). null: databaseUrl.",
    },
    sessionSecret: {
      type: ['string', 'null'],
      minLength: 32,
      default: null,
      description:
        'Secret (at least 32 characters) that signs and encrypts the login session cookie (env SESSION_SECRET). null: a random one per process, so sessions end at restart and are not shared between instances; refused when NODE_ENV is production unless sessionSecretFile is set.',
    },
    sessionSecretFile: {
      type: ['string', 'null'],
      minLength: 1,
      default: null,
      description:
        'Path of a file that holds sessionSecret (env SESSION_SECRET_FILE), for secrets mounted as files (Docker or Kubernetes secrets); its contents, without surrounding whitespace, must be at least 32 characters. A relative path is relative to the working directory. Not together with sessionSecret.',
    },
    log: {
      type: 'object',
      additionalProperties: false,
      default: {},
      description: 'Logging.',
      properties: {
        level: {
          enum: ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'],
          default: 'info',
          description: 'pino log level (env LOG_LEVEL).',
        },
        format: { enum: ['json', 'pretty'], default: 'json', description: 'json: one JSON object a line; pretty: human-readable.' },
      },
    },
    accessTokenExpiresIn: {
      type: ['integer', 'null'],
      minimum: 1,
      default: 7200,
      description: 'Access token lifetime in seconds; null = never expires (Doorkeeper access_token_expires_in).',
    },
    authorizationCodeExpiresIn: {
      type: 'integer',
      minimum: 1,
      maximum: 3600,
      default: 600,
      description: 'Authorization code lifetime in seconds.',
    },
    authentication: authenticationSchema,
    deviceAuthorization: deviceAuthorizationSchema,
    pushedAuthorizationRequests: pushedAuthorizationRequestsSchema,
    grantFlows: {
      type: 'array',
      uniqueItems: true,
      default: ['authorization_code', 'client_credentials', 'refresh_token'],
      items: {
        enum: [
          'authorization_code',
          'client_credentials',
          'refresh_token',
          'password',
          'implicit',
          'urn:ietf:params:oauth:grant-type:device_code',
          'urn:ietf:params:oauth:grant-type:jwt-bearer',
          'urn:ietf:params:oauth:grant-type:token-exchange',
        ],
      },
      description:
        'Enabled grant flows; `password`, `implicit`, the device authorization grant (`urn:ietf:params:oauth:grant-type:device_code`, RFC 8628) and the JWT bearer grant (`urn:ietf:params:oauth:grant-type:jwt-bearer`, RFC 7523, see trustedIssuers) and the token exchange grant (`urn:ietf:params:oauth:grant-type:token-exchange`, RFC 8693, see tokenExchange) are off unless listed. A client uses the device, JWT bearer or token exchange grant only when its own grant types name it.',
    },
    defaultScopes: { ...scopeList, default: ['read'], description: 'Scopes granted when none are requested.' },
    optionalScopes: {
      ...scopeList,
      default: [],
      description: 'Further scopes a client may request. Server scopes = defaultScopes + optionalScopes.',
    },
    scopeDescriptions: {
      type: 'object',
      additionalProperties: localizedTextSchema,
      default: {},
      description:
        'Text shown for each scope on the consent screen, e.g. {"read": "Read your data"}; one text per page language instead of one for all: {"read": {"en": "Read your data", "de": "Ihre Daten lesen"}} (a language without its own text gets defaultLocale\'s, which must then be given).',
    },
    defaultLocale: {
      enum: [...PAGE_LOCALES],
      default: 'en',
      description:
        "Language of the end-user pages (sign-in, consent, device, sign-out, errors) when neither the authorization request's ui_locales nor the browser's Accept-Language names a supported one: en, de, fr, es or ja.",
    },
    enforceConfiguredScopes: { type: 'boolean', default: true, description: 'Application scopes must be server scopes.' },
    refreshTokens: {
      type: 'object',
      additionalProperties: false,
      default: {},
      description: 'Refresh tokens; rotation is always on.',
      properties: {
        expiresIn: {
          type: ['integer', 'null'],
          minimum: 1,
          default: null,
          description: 'Refresh token lifetime in seconds; null = until used or revoked.',
        },
        reuseDetection: {
          type: 'boolean',
          default: true,
          description: 'Presenting an already rotated refresh token revokes its whole family.',
        },
        graceSeconds: {
          type: 'integer',
          minimum: 0,
          maximum: 300,
          default: 0,
          description:
            'Seconds after rotation during which the same client may present the old refresh token again without triggering reuse detection.',
        },
      },
    },
    reuseAccessToken: {
      type: 'boolean',
      default: false,
      description: 'Return an existing live token instead of issuing a new one (only possible with hashTokens off).',
    },
    revokePreviousClientCredentialsToken: {
      type: 'boolean',
      default: false,
      description: 'A new client_credentials token revokes the previous one with the same scopes.',
    },
    revokePreviousAuthorizationCodeToken: {
      type: 'boolean',
      default: false,
      description: 'A code exchange revokes earlier tokens of the same application and user.',
    },
    pkce: {
      type: 'object',
      additionalProperties: false,
      default: {},
      description: 'PKCE (RFC 7636).',
      properties: {
        required: { enum: ['none', 'public', 'all'], default: 'public', description: 'Which clients must send a code_challenge.' },
        methods: {
          type: 'array',
          minItems: 1,
          uniqueItems: true,
          items: { enum: ['S256', 'plain'] },
          default: ['S256'],
          description: 'Accepted code_challenge_method values.',
        },
      },
    },
    forceSslInRedirectUri: { type: 'boolean', default: true, description: 'Redirect URIs must be https, except literal loopback IPs.' },
    skipAuthorization: {
      type: 'object',
      additionalProperties: false,
      default: {},
      description: 'When the consent screen is skipped.',
      properties: {
        clients: {
          type: 'array',
          items: { type: 'string' },
          uniqueItems: true,
          default: [],
          description: 'client_ids that never show the consent screen.',
        },
        whenPreviouslyAuthorized: {
          type: 'boolean',
          default: true,
          description: 'Skip for a confidential client that holds a live token of the user with the same scopes.',
        },
      },
    },
    introspection: introspectionSchema,
    hashTokens: { type: 'boolean', default: true, description: 'Store tokens, refresh tokens and codes as SHA-256 hashes.' },
    hashApplicationSecrets: {
      type: 'boolean',
      default: true,
      description:
        'Store client secrets as SHA-256 hashes. Changing it locks no client out: a secret stored under the other setting keeps working, in the form it was stored in, until it is rotated (a hashed one cannot key client_secret_jwt).',
    },
    admin: {
      type: 'object',
      additionalProperties: false,
      default: {},
      description: 'The admin of /oauth/applications (HTTP Basic).',
      properties: {
        username: { type: 'string', minLength: 1, default: 'admin', description: 'Admin user name.' },
        passwordHash: {
          type: ['string', 'null'],
          pattern: '^\\$argon2id\\$',
          default: null,
          description:
            'argon2id hash of the admin password (env ADMIN_PASSWORD_HASH, or the plain password in env ADMIN_PASSWORD). null and no env: the admin UI refuses everyone.',
        },
      },
    },
    openid: openidSchema,
    keys: signingKeysSchema,
    dpop: dpopSchema,
    trustedIssuers: trustedIssuersSchema,
    identityProviders: identityProvidersSchema,
    tokenExchange: tokenExchangeSchema,
    registration: registrationSchema,
    rateLimit: rateLimitSchema,
    realm: {
      type: 'string',
      minLength: 1,
      pattern: '^[\\x20\\x21\\x23-\\x5B\\x5D-\\x7E]+$',
      default: 'oauth-service',
      description: 'Realm of WWW-Authenticate challenges.',
    },
    bodyLimit: {
      type: 'integer',
      minimum: 1024,
      maximum: 10485760,
      default: 16384,
      description: 'Largest accepted request body in bytes (413 above).',
    },
    extensions: {
      type: ['string', 'null'],
      minLength: 1,
      default: null,
      description: 'Path of a JS module with hooks and controller subclasses.',
    },
  },
} as const;
