// config `authentication` (issue 35): what a sign-in is called in tokens. The acr (OpenID Connect Core 2) this server
// issues for each level it can reach; src/oauth/authentication-context.ts maps a sign-in's amr to one. Part of
// config/schema.ts.

import { passkeysSchema } from './passkeys-schema.js';

const acrValue = { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x21\\x23-\\x5B\\x5D-\\x7E]+$' } as const;

export const authenticationSchema = {
  type: 'object',
  additionalProperties: false,
  default: {},
  description: 'How end users sign in, as tokens describe it (acr, amr, auth_time).',
  properties: {
    acr: {
      type: 'object',
      additionalProperties: false,
      default: {},
      description:
        'The acr value issued for each level of sign-in (ID tokens, JWT access tokens, introspection) and listed as acr_values_supported. pwd: a password alone; mfa: two factors; phr: phishing-resistant (a passkey).',
      properties: {
        pwd: { ...acrValue, default: 'urn:oauth-service:acr:pwd', description: 'The acr of a sign-in with a password alone.' },
        mfa: { ...acrValue, default: 'urn:oauth-service:acr:mfa', description: 'The acr of a sign-in with two factors.' },
        phr: { ...acrValue, default: 'urn:oauth-service:acr:phr', description: 'The acr of a phishing-resistant sign-in (a passkey).' },
      },
    },
    passkeys: passkeysSchema,
    localPasswords: {
      type: 'boolean',
      default: true,
      description:
        'Users may sign in here with a password. false: /login shows only the identityProviders buttons (and passkeys) and refuses a posted password; needs at least one identity provider.',
    },
    requireSecondFactor: {
      default: false,
      description:
        'Who must sign in with a second factor (TOTP): false, a user whose own setting (mfa) is required or who has one; true: every user (one without a second factor sets one up before the sign-in completes); a list of client ids: sign-ins that authorize one of these clients. The admin UI uses its own Basic authentication and is not a client here.',
      oneOf: [
        { type: 'boolean' },
        { type: 'array', items: { type: 'string', minLength: 1, maxLength: 255 }, maxItems: 1000, uniqueItems: true },
      ],
    },
  },
} as const;

/** The levels of sign-in this server names (RFC 8176 amr values map to them in oauth/authentication-context.ts). */
export type AuthenticationLevel = 'pwd' | 'mfa' | 'phr';

/** config authentication.requireSecondFactor. */
export type SecondFactorRequirement = boolean | string[];

/** The acr issued for each level. */
export type AcrValues = Record<AuthenticationLevel, string>;
