// config `trustedIssuers` (issue 34 item 3): the identity providers whose signed assertions the JWT bearer grant
// (RFC 7523 section 2.1) redeems for access tokens, each with the clients that may present them, the scopes they may
// grant and how their subjects become users here. Part of config/schema.ts; the checks JSON Schema cannot state
// (an issuer listed twice, a scope the server does not offer) are trustedIssuerProblems, run by the loader.

export interface TrustedIssuerConfig {
  issuer: string;
  jwksUri: string;
  audience: string | null;
  subjectClaim: string;
  userMatch: 'sub' | 'email';
  clients: string[];
  scopes: string[];
  idJag: boolean;
  createUsers: boolean;
  refreshTokens: boolean;
  maxLifetimeSeconds: number;
}

const absoluteUrl = { type: 'string', format: 'uri', pattern: '^https?://' } as const;

export const trustedIssuersSchema = {
  type: 'array',
  default: [],
  description:
    'Identity providers whose signed JWT assertions the JWT bearer grant (`urn:ietf:params:oauth:grant-type:jwt-bearer`, RFC 7523) redeems for access tokens, while grantFlows lists that grant. Empty: no assertion is trusted (the grant in grantFlows then stops the boot).',
  items: {
    type: 'object',
    additionalProperties: false,
    required: ['issuer', 'jwksUri', 'clients', 'scopes'],
    properties: {
      issuer: { ...absoluteUrl, description: 'The `iss` of its assertions, exactly.' },
      jwksUri: {
        ...absoluteUrl,
        description: 'Where its public signing keys are published (a JWK Set); fetched with a 5 second timeout, cached.',
      },
      audience: {
        type: ['string', 'null'],
        minLength: 1,
        default: null,
        description: "The `aud` its assertions must carry; null: this server's issuer (baseUrl).",
      },
      subjectClaim: { type: 'string', minLength: 1, default: 'sub', description: 'The claim that names the user at that issuer.' },
      userMatch: {
        enum: ['sub', 'email'],
        default: 'sub',
        description:
          "How an issuer subject seen for the first time finds its user here: `sub` only by an earlier link (or createUsers), `email` also by a local user with that email verified here (not on an upstream identity provider's word) when the assertion says email_verified true.",
      },
      clients: {
        type: 'array',
        uniqueItems: true,
        minItems: 1,
        items: { type: 'string', minLength: 1 },
        description: 'The client ids that may present its assertions (each client must also list the grant among its grant types).',
      },
      scopes: {
        type: 'array',
        uniqueItems: true,
        minItems: 1,
        items: { type: 'string', minLength: 1 },
        description: "The most its assertions may grant; a token gets the scopes asked for within these, the assertion's and the client's.",
      },
      idJag: {
        type: 'boolean',
        default: false,
        description:
          'Its assertions are Identity Assertion JWT Authorization Grants (ID-JAG, MCP enterprise-managed authorization): typ oauth-id-jag+jwt, a client_id claim naming the presenting client, an optional resource.',
      },
      createUsers: { type: 'boolean', default: false, description: 'Create a user (without a password) for a subject that finds none.' },
      refreshTokens: {
        type: 'boolean',
        default: false,
        description: 'Tokens from its assertions come with a refresh token (when the client may have one).',
      },
      maxLifetimeSeconds: {
        type: 'integer',
        minimum: 10,
        maximum: 3600,
        default: 300,
        description: "How far ahead of now an assertion's exp may be; one that lives longer is refused.",
      },
    },
  },
} as const;

/** Why the entries cannot be used as they are, one line each with its path; [] when they can. */
export function trustedIssuerProblems(
  entries: readonly TrustedIssuerConfig[],
  serverScopes: ReadonlySet<string>,
  baseUrl: string,
): string[] {
  const problems: string[] = [];
  const seen = new Set<string>();
  entries.forEach((entry, index) => {
    if (seen.has(entry.issuer)) problems.push(`trustedIssuers.${index}.issuer: ${entry.issuer} is listed twice`);
    seen.add(entry.issuer);
    // draft-ietf-oauth-identity-assertion-authz-grant, Security Considerations (Cross-Domain Use): never redeem what this server issued itself.
    if (entry.issuer.replace(/\/+$/, '') === baseUrl.replace(/\/+$/, ''))
      problems.push(`trustedIssuers.${index}.issuer: is this server (baseUrl); it cannot trust its own assertions`);
    for (const scope of entry.scopes)
      if (!serverScopes.has(scope)) problems.push(`trustedIssuers.${index}.scopes: ${scope} is not a scope this server offers`);
  });
  return problems;
}
