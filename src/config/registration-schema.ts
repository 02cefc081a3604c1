// config `registration` (RFC 7591 / RFC 7592, issue 19): whether clients may register themselves at
// /oauth/register. Part of config/schema.ts.

export const REGISTRATION_POLICIES = ['off', 'open'] as const;

export const registrationSchema = {
  type: 'object',
  additionalProperties: false,
  default: {},
  description: 'Dynamic client registration (RFC 7591) and management (RFC 7592) at /oauth/register.',
  properties: {
    policy: {
      enum: [...REGISTRATION_POLICIES],
      default: 'off',
      description: 'off: no registration endpoint; open: anyone may register a client (RFC 7591 section 3).',
    },
    maxOpenRegistrations: {
      type: 'integer',
      minimum: 0,
      default: 1000,
      description: 'How many self-registered clients may exist at once; beyond it registration is refused.',
    },
  },
} as const;
