// config `rateLimit` (SPEC 5): the failure lockouts of client authentication, sign-in and the admin, and the optional
// per-client budget of the API group (oauth/limits/, http/plugins/api-rate-limits.ts). Part of config/schema.ts.

export const rateLimitSchema = {
  type: 'object',
  additionalProperties: false,
  default: {},
  description:
    'Lockout after failed authentication, of the failing pair (client or user name, with address); of an address only for unknown client ids or many user names.',
  properties: {
    enabled: { type: 'boolean', default: true, description: 'false turns every limit off.' },
    maxFailures: { type: 'integer', minimum: 1, default: 10, description: 'Failed attempts within windowSeconds before a lockout.' },
    windowSeconds: { type: 'integer', minimum: 1, default: 60, description: 'Window in which failures are counted.' },
    lockoutSeconds: {
      type: 'integer',
      minimum: 1,
      default: 300,
      description: 'How long a locked-out pair (client or user, with address) or address gets 429.',
    },
    maxUserNamesPerAddress: {
      type: 'integer',
      minimum: 1,
      default: 20,
      description:
        'Different user names that may fail to sign in from one address within windowSeconds before the whole address is locked out (password spraying).',
    },
    perClientPerMinute: {
      type: ['integer', 'null'],
      minimum: 1,
      default: null,
      description:
        "Optional cap on requests per client per minute wherever a client authenticates (token, revoke, introspect, PAR, device authorization), counted once its credentials were checked (a wrong secret spends no client's budget); per address for requests that name no client (UserInfo, token info, introspection by a Bearer token, registration management); null = unlimited.",
    },
  },
} as const;
