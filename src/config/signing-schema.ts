// config `openid` and `keys` (issue 16): OpenID Connect's switch and the signing-key lifecycle
// (src/oauth/keys/signing-keys.ts). Part of config/schema.ts.

import { backchannelLogoutSchema } from './backchannel-logout-schema.js';

export const openidSchema = {
  type: 'object',
  additionalProperties: false,
  default: {},
  description:
    'OpenID Connect: ID tokens, UserInfo, discovery (/.well-known/openid-configuration), logout, and the signing keys with their JWKS.',
  properties: {
    enabled: {
      type: ['boolean', 'null'],
      default: null,
      description:
        'Be an OpenID Provider (adds the scopes openid, profile, email, address and phone to optionalScopes). null (automatic): on for the quick start, that is `serve` and the CLI on the embedded database outside production (NODE_ENV not production), with env KEY_ENCRYPTION_KEY or else a development key generated beside the data with a warning; off with DATABASE_URL, with NODE_ENV=production, and for a server built in code (buildServer). true: on, and needs env KEY_ENCRYPTION_KEY with DATABASE_URL or in production. false: off. Env OPENID_ENABLED=true|false|null.',
    },
    idTokenExpiresIn: {
      type: 'integer',
      minimum: 60,
      maximum: 86400,
      default: 3600,
      description: 'Lifetime of an ID token in seconds.',
    },
    pairwiseSalt: {
      type: ['string', 'null'],
      minLength: 32,
      default: null,
      description:
        'Secret (at least 32 characters) that pairwise subject identifiers (OpenID Connect Core 8.1) are derived from (env PAIRWISE_SALT). Every instance needs the same one, and it must never change: a new salt gives every user of a pairwise client a new sub. null: clients can only be public (subject_types_supported lists public alone).',
    },
    backchannelLogout: backchannelLogoutSchema,
  },
} as const;

export const signingKeysSchema = {
  type: 'object',
  additionalProperties: false,
  default: {},
  description: 'Signing keys (ID tokens), shared by every instance; private keys encrypted under env KEY_ENCRYPTION_KEY.',
  properties: {
    algorithms: {
      type: 'array',
      uniqueItems: true,
      minItems: 1,
      items: { enum: ['RS256', 'ES256', 'EdDSA'] },
      default: ['RS256'],
      description: 'Algorithms kept signing-ready; RS256, the OpenID Connect default, is always among them.',
    },
    publishAheadSeconds: {
      type: 'integer',
      minimum: 0,
      maximum: 2592000,
      default: 86400,
      description: 'How long a new key is published in the JWKS before it signs (relying parties cache the JWKS for half of it).',
    },
    rotateAfterDays: {
      type: 'integer',
      minimum: 1,
      maximum: 3650,
      default: 90,
      description: 'How long a key signs before its successor takes over.',
    },
  },
} as const;
