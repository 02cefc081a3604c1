// config `openid.backchannelLogout` (issue 31 item 5, OpenID Connect Back-Channel Logout 1.0): how logout tokens
// reach relying parties, and whose back-channel URIs may point into private networks. Part of signing-schema.ts.

export const BACKCHANNEL_PRIVATE_ADDRESSES = ['none', 'adminClients', 'all'] as const;

export interface BackchannelLogoutConfig {
  timeoutMs: number;
  maxAttempts: number;
  retryAfterSeconds: number;
  privateAddresses: (typeof BACKCHANNEL_PRIVATE_ADDRESSES)[number];
  keepDays: number;
}

export const backchannelLogoutSchema = {
  type: 'object',
  additionalProperties: false,
  default: {},
  description:
    'Back-Channel Logout 1.0: the logout tokens POSTed to the backchannel_logout_uri of each client the user had a session with.',
  properties: {
    timeoutMs: {
      type: 'integer',
      minimum: 100,
      maximum: 60000,
      default: 5000,
      description: 'One delivery (connect, request and answer) must end within this time, or it is tried again later.',
    },
    maxAttempts: {
      type: 'integer',
      minimum: 1,
      maximum: 20,
      default: 8,
      description: 'Attempts at one delivery before it is given up (logged and counted as failed).',
    },
    retryAfterSeconds: {
      type: 'integer',
      minimum: 1,
      maximum: 3600,
      default: 30,
      description: 'Wait before the second attempt; each later wait doubles, up to an hour. Pending deliveries survive a restart.',
    },
    privateAddresses: {
      enum: [...BACKCHANNEL_PRIVATE_ADDRESSES],
      default: 'adminClients',
      description:
        'Which back-channel URIs may reach loopback, private and link-local addresses: none; adminClients (those an admin made; a self-registered client never); all (development only: refused when NODE_ENV is production).',
    },
    keepDays: {
      type: 'integer',
      minimum: 0,
      maximum: 365,
      default: 7,
      description: '`tokens cleanup` deletes deliveries made or given up longer ago than this.',
    },
  },
} as const;
