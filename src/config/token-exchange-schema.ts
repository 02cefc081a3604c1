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

/** Why the section cannot be used as it is, one line each with its path; [] when it can. */
export function tokenExchangeProblems(section: TokenExchangeConfig, openidEnabled: boolean, baseUrl: string): string[] {
  const problems: string[] = [];
  const seen = new Set<string>();
  section.idJagAudiences.forEach((entry, index) => {
    if (seen.has(entry.audience)) problems.push(`tokenExchange.idJagAudiences.${index}.audience: ${entry.audience} is listed twice`);
    seen.add(entry.audience);
    // An ID-JAG for this server itself would be redeemed by the server that signed it (the draft's Cross-Domain Use).
    if (entry.audience.replace(/\/+$/, '') === baseUrl.replace(/\/+$/, ''))
      problems.push(
        `tokenExchange.idJagAudiences.${index}.audience: is this server (baseUrl); ID-JAGs are for other authorization servers`,
      );
  });
  if (section.idJagAudiences.length > 0 && !openidEnabled)
    problems.push('tokenExchange.idJagAudiences: needs openid.enabled (an ID-JAG is exchanged for an ID token)');
  return problems;
}
