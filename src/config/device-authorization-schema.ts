// config `deviceAuthorization` (RFC 8628, issue 34): how long device codes live, how often devices may poll, and
// how often one user code may be entered. Part of config/schema.ts.

export const deviceAuthorizationSchema = {
  type: 'object',
  additionalProperties: false,
  default: {},
  description: 'The device authorization grant (RFC 8628), while grantFlows lists it.',
  properties: {
    expiresIn: {
      type: 'integer',
      minimum: 60,
      maximum: 3600,
      default: 600,
      description: 'Seconds a device code and its user code live (the expires_in of POST /oauth/device_authorization).',
    },
    interval: {
      type: 'integer',
      minimum: 1,
      maximum: 60,
      default: 5,
      description:
        'Seconds a device waits between polls; each poll sooner than that answers slow_down and adds 5 seconds for that device code.',
    },
    maxEntriesPerCode: {
      type: 'integer',
      minimum: 1,
      maximum: 20,
      default: 5,
      description: 'How often one user code may be entered at /device; past it the device authorization is denied.',
    },
  },
} as const;
