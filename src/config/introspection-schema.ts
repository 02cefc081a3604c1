// config `introspection` (RFC 7662, SPEC 3.3): the declarative rules of who may introspect which token, and the
// extra response fields. Part of config/schema.ts.

const introspectionRule = {
  type: 'object',
  description: 'One introspection rule; the rules are OR-ed.',
  required: ['rule'],
  discriminator: { propertyName: 'rule' },
  oneOf: [
    {
      properties: { rule: { const: 'sameApplication' } },
      required: ['rule'],
      additionalProperties: false,
      description: "Bearer requester: its token belongs to the introspected token's application.",
    },
    {
      properties: { rule: { const: 'tokenApplication' } },
      required: ['rule'],
      additionalProperties: false,
      description: "Client requester: the client is the introspected token's application.",
    },
    {
      properties: { rule: { const: 'publicToken' } },
      required: ['rule'],
      additionalProperties: false,
      description: 'Client requester: the introspected token has no application.',
    },
    {
      properties: { rule: { const: 'clients' }, clientIds: { type: 'array', items: { type: 'string' }, minItems: 1 } },
      required: ['rule', 'clientIds'],
      additionalProperties: false,
      description: 'These clients (by client_id) may introspect any token.',
    },
    {
      properties: { rule: { const: 'audience' } },
      required: ['rule'],
      additionalProperties: false,
      description: "Client requester: a resource in the introspected token's audience names it as its server (RFC 8707).",
    },
    {
      properties: { rule: { const: 'bearerScope' }, scope: { type: 'string', minLength: 1 } },
      required: ['rule', 'scope'],
      additionalProperties: false,
      description: 'A bearer token holding this scope may introspect any token.',
    },
  ],
};

const responseFieldSource = {
  oneOf: [
    { enum: ['subject', 'resourceOwnerId', 'resourceOwner.username', 'application.uid', 'application.name'] },
    { type: 'object', properties: { value: {} }, required: ['value'], additionalProperties: false },
  ],
};

/**
 * Issue 31 item 2: `"sub": "resourceOwnerId"` (what the docs once recommended) or the user name replaces the standard
 * sub, the user's OpenID subject that ID tokens, UserInfo and JWT access tokens carry, with a value that matches
 * nothing else this server issues. It still works (a configured field wins); the boot and `config check` say so.
 */
export function introspectionSubNotes(response: Record<string, unknown>): string[] {
  const source = response.sub;
  if (source !== 'resourceOwnerId' && source !== 'resourceOwner.username') return [];
  return [
    `introspection.response.sub is ${source}: introspection then answers sub with ${source === 'resourceOwnerId' ? 'the numeric user id' : 'the user name'} instead of the user's OpenID subject (the sub of ID tokens, UserInfo and JWT access tokens); remove it, or answer that value under another name (for example "user_id": "${source}")`,
  ];
}

export const introspectionSchema = {
  type: 'object',
  additionalProperties: false,
  default: {},
  description: 'Token introspection (RFC 7662).',
  properties: {
    enabled: { type: 'boolean', default: true, description: 'false removes POST /oauth/introspect (404).' },
    allow: {
      type: 'array',
      items: introspectionRule,
      // The seed's three rules; audience (RFC 8707 resource servers) is added by those who register resources.
      default: [{ rule: 'sameApplication' }, { rule: 'tokenApplication' }, { rule: 'publicToken' }],
      description:
        'Who may introspect which token: OR-ed rules sameApplication, tokenApplication, publicToken, audience, clients, bearerScope.',
    },
    response: {
      type: 'object',
      additionalProperties: responseFieldSource,
      default: {},
      description:
        'Extra response fields: name -> subject (the OpenID sub, pairwise for a pairwise client) | resourceOwnerId (the numeric user id) | resourceOwner.username | application.uid | application.name | {"value": JSON}. A user\'s token is answered with the standard sub (its ID tokens\' sub) anyway; a field named here wins over a standard one, sub included.',
    },
  },
} as const;
