// config `tokenExchange` (issue 34 item 4): what the token exchange grant (RFC 8693) may do beyond delegation. Which
// clients may impersonate (exchange a subject token with no actor_token), and the downstream authorization servers
// this server issues ID-JAGs for as an enterprise identity provider (draft-ietf-oauth-identity-assertion-authz-grant).
// Part of config/schema.ts.

export interface IdJagAudienceConfig {
  audience: string;
  clientId: string;
  clients: string[];
  resource: string | null;
  lifetimeSeconds: number;
}

export interface TokenExchangeConfig {
  impersonationClients: string[];
  idJagAudiences: IdJagAudienceConfig[];
}

const clientIds = { type: 'array', uniqueItems: true, items: { type: 'string', minLength: 1 } } as const;

export const tokenExchangeSchema = {
  type: 'object',
  additionalProperties: false,
  default: {},
  description:
    'The token exchange grant (`urn:ietf:params:oauth:grant-type:token-exchange`, RFC 8693), while grantFlows lists it and for clients whose grant types name it.',
  properties: {
    impersonationClients: {
      ...clientIds,
      default: [],
      description:
        'Client ids that may impersonate: exchange a subject token without an actor_token, getting a token that says nothing of them acting. Others must send an actor_token (delegation, recorded as the act claim).',
    },
    idJagAudiences: {
      type: 'array',
      default: [],
      description:
        'Downstream authorization servers this server issues ID-JAGs for (requested_token_type `urn:ietf:params:oauth:token-type:id-jag`, an ID token as subject_token, OpenID Connect on): this server is then their enterprise identity provider, and they list it among their trustedIssuers with idJag true.',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['audience', 'clientId', 'clients'],
        properties: {
          audience: {
            type: 'string',
            minLength: 1,
            description: "The downstream server's issuer identifier: the ID-JAG's aud and the exchange's audience parameter.",
          },
          clientId: {
            type: 'string',
            minLength: 1,
            description: "The client's id at the downstream server: the ID-JAG's client_id claim.",
          },
          clients: { ...clientIds, minItems: 1, description: 'The client ids here that may ask for an ID-JAG for that server.' },
          resource: {
            type: ['string', 'null'],
            minLength: 1,
            default: null,
            description: "The ID-JAG's resource claim when the request names none; a resource parameter must equal it when set.",
          },
          lifetimeSeconds: { type: 'integer', minimum: 10, maximum: 300, default: 60, description: "The ID-JAG's lifetime (exp - iat)." },
        },
      },
    },
  },
} as const;
