// config `hsts` (RFC 6797, issue 29 item 11): the Strict-Transport-Security header of every response while
// baseUrl is https. Part of config/schema.ts.

export const ONE_YEAR_SECONDS = 31536000;

export const hstsSchema = {
  type: 'object',
  additionalProperties: false,
  default: {},
  description:
    'Strict-Transport-Security (RFC 6797) on every response while baseUrl is https (behind a TLS-terminating proxy too); never while it is http (section 7.2).',
  properties: {
    maxAgeSeconds: {
      type: ['integer', 'null'],
      minimum: 0,
      maximum: 315360000,
      default: ONE_YEAR_SECONDS,
      description:
        'max-age of the header. 0 sends max-age=0, which makes browsers forget the rule (section 6.1.1: how to withdraw it); null sends no header (a proxy in front sets its own).',
    },
    includeSubDomains: {
      type: 'boolean',
      default: false,
      description: 'Add includeSubDomains: every subdomain of the issuer host must then serve https too.',
    },
    preload: {
      type: 'boolean',
      default: false,
      description: 'Add preload (hstspreload.org), which needs includeSubDomains and a maxAgeSeconds of at least one year.',
    },
  },
} as const;
