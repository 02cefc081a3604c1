// config `dpop` (RFC 9449, issue 18): which proofs the token endpoint accepts and whether it asks for server
// nonces. Part of config/schema.ts.

// Ed25519 is EdDSA's fully-specified name (RFC 9864), which oauth4webapi signs with.
export const DPOP_ALGORITHMS = ['ES256', 'ES384', 'EdDSA', 'Ed25519', 'RS256', 'PS256'] as const;

export const dpopSchema = {
  type: 'object',
  additionalProperties: false,
  default: {},
  description: 'DPoP (RFC 9449): sender-constrained tokens for clients that send a DPoP proof.',
  properties: {
    algorithms: {
      type: 'array',
      uniqueItems: true,
      minItems: 1,
      items: { enum: [...DPOP_ALGORITHMS] },
      default: [...DPOP_ALGORITHMS],
      description: 'Asymmetric algorithms a DPoP proof may use (dpop_signing_alg_values_supported).',
    },
    proofMaxAgeSeconds: {
      type: 'integer',
      minimum: 10,
      maximum: 3600,
      default: 300,
      description: 'How old a proof (its iat) may be; a proof is accepted once within this window, on any instance.',
    },
    clockToleranceSeconds: {
      type: 'integer',
      minimum: 0,
      maximum: 300,
      default: 10,
      description: 'How far in the future a proof iat may be (client clocks run ahead; FAPI 2.0 asks for 10 s).',
    },
    nonce: {
      type: 'object',
      additionalProperties: false,
      default: {},
      description: 'Server nonces (RFC 9449 section 8): valid on every instance that shares sessionSecret.',
      properties: {
        required: {
          type: 'boolean',
          default: false,
          description: 'Every proof at the token endpoint, PAR and UserInfo must carry a current nonce (use_dpop_nonce otherwise).',
        },
        rotateSeconds: { type: 'integer', minimum: 10, maximum: 86400, default: 300, description: 'How long a nonce stays current.' },
      },
    },
  },
} as const;
