// config `pushedAuthorizationRequests` (RFC 9126, issue 36): whether every client must push its authorization
// requests, and how long a request_uri may wait for its authorization request. Part of config/schema.ts.

export const pushedAuthorizationRequestsSchema = {
  type: 'object',
  additionalProperties: false,
  default: {},
  description: 'Pushed authorization requests (RFC 9126): POST /oauth/par, then /oauth/authorize with the request_uri it answers.',
  properties: {
    required: {
      type: 'boolean',
      default: false,
      description:
        'Every client must push its authorization requests (discovery require_pushed_authorization_requests); false: only the clients registered with require_pushed_authorization_requests.',
    },
    expiresIn: {
      type: 'integer',
      minimum: 5,
      maximum: 600,
      default: 60,
      description:
        'Seconds a request_uri may wait for the authorization request that uses it (the expires_in of POST /oauth/par); once used, the sign-in and consent have 10 minutes.',
    },
  },
} as const;
