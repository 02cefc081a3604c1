// config `identityProviders` (issue 37 item 1): the upstream OpenID Providers (and OAuth 2.0 providers with a UserInfo
// URL, GitHub-style) users may sign in through from /login, this server staying the authorization server of its APIs.
// Part of config/schema.ts. A client secret is never in the JSON: the loader takes it from IDP_<ID>_CLIENT_SECRET or
// clientSecretFile (identityProviderSecretProblems); the checks JSON Schema cannot state are identityProviderProblems.

import { createPrivateKey, type JsonWebKey, type KeyObject } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { extname } from 'node:path';

/** Upstream claim names for the claims of ours they give (OpenID Connect Core 5.1 names on our side). */
export type ClaimMapping = Record<string, string>;

export interface IdentityProviderConfig {
  id: string;
  name: string;
  type: 'oidc' | 'oauth2';
  issuer: string;
  clientId: string;
  clientSecretFile: string | null;
  privateKeyJwt: { keyFile: string; alg: string } | null;
  scopes: string[];
  claims: ClaimMapping;
  allowedDomains: string[] | null;
  usePkce: boolean;
  logoFile: string | null;
  linkByVerifiedEmail: boolean;
  createUsers: boolean;
  timeoutSeconds: number;
  endUpstreamSession: boolean;
  authorizationEndpoint: string | null;
  tokenEndpoint: string | null;
  userinfoEndpoint: string | null;
  /** Set by the loader from IDP_<ID>_CLIENT_SECRET or clientSecretFile; never read from the JSON. */
  clientSecret?: string | null;
}

const absoluteUrl = { type: 'string', format: 'uri', pattern: '^https?://' } as const;
const endpoint = (what: string) =>
  ({ type: ['string', 'null'], format: 'uri', pattern: '^https?://', default: null, description: `type oauth2: its ${what}.` }) as const;

/** The claims of ours an upstream fills by default, from the upstream claims of the same OpenID Connect names. */
export const DEFAULT_CLAIM_MAPPING: ClaimMapping = {
  sub: 'sub',
  username: 'preferred_username',
  email: 'email',
  email_verified: 'email_verified',
  name: 'name',
  given_name: 'given_name',
  family_name: 'family_name',
};

export const identityProvidersSchema = {
  type: 'array',
  default: [],
  description:
    'Upstream identity providers users may sign in through at /login (a button each), linked to local users (see docs/behaviour.md 3.23). The redirect URI to register at each: `{baseUrl}/login/upstream/{id}/callback` (with endUpstreamSession, the post-logout redirect URI `{baseUrl}/login`; its back-channel logout URI: `{baseUrl}/login/upstream/{id}/backchannel-logout`). Client secrets come from the environment variable `IDP_<ID>_CLIENT_SECRET` (id upper-cased, - as _) or clientSecretFile, never from this file.',
  items: {
    type: 'object',
    additionalProperties: false,
    required: ['id', 'name', 'issuer', 'clientId'],
    properties: {
      id: { type: 'string', description: 'Its id here: [a-z0-9-]{1,32}, part of its URLs and of its secret variable.' },
      name: { type: 'string', minLength: 1, maxLength: 100, description: 'Shown on its button: "Sign in with {name}".' },
      type: {
        enum: ['oidc', 'oauth2'],
        default: 'oidc',
        description:
          'oidc: an OpenID Provider, discovered from issuer (ID tokens verified); oauth2: authorization code + PKCE, then its userinfoEndpoint with the access token (GitHub-style).',
      },
      issuer: { ...absoluteUrl, description: 'Its issuer identifier (oidc: discovered from `{issuer}/.well-known/openid-configuration`).' },
      clientId: { type: 'string', minLength: 1, description: 'The client id this server has at it.' },
      clientSecretFile: {
        type: ['string', 'null'],
        minLength: 1,
        default: null,
        description: 'A file holding the client secret (Docker/Kubernetes secrets), instead of IDP_<ID>_CLIENT_SECRET.',
      },
      privateKeyJwt: {
        type: ['object', 'null'],
        additionalProperties: false,
        required: ['keyFile'],
        default: null,
        description: 'Authenticate to its token endpoint with private_key_jwt (RFC 7523) instead of a secret.',
        properties: {
          keyFile: { type: 'string', minLength: 1, description: 'The private key: PKCS#8 PEM or a private JWK (JSON).' },
          alg: { enum: ['RS256', 'PS256', 'ES256', 'EdDSA'], default: 'RS256', description: 'The JWS algorithm of the assertion.' },
        },
      },
      scopes: {
        type: 'array',
        uniqueItems: true,
        minItems: 1,
        items: { type: 'string', minLength: 1 },
        default: ['openid', 'email', 'profile'],
        description: 'The scopes asked of it.',
      },
      claims: {
        type: 'object',
        default: {},
        additionalProperties: { type: 'string', minLength: 1 },
        description:
          'Upstream claim names for ours (sub, username, email, email_verified, name, given_name, family_name, ...); each left out is the upstream claim of the same OpenID Connect name (username: preferred_username). GitHub: { "sub": "id", "username": "login" }.',
      },
      allowedDomains: {
        type: ['array', 'null'],
        items: { type: 'string', minLength: 1 },
        default: null,
        description: 'Only users whose verified email is at one of these domains may sign in through it; null: anybody it signs in.',
      },
      usePkce: { type: 'boolean', default: true, description: 'Send a PKCE S256 challenge (RFC 7636).' },
      logoFile: {
        type: ['string', 'null'],
        minLength: 1,
        default: null,
        description: 'A local png, svg or jpg (at most 100 KB) shown on its button; read once at boot.',
      },
      linkByVerifiedEmail: {
        type: 'boolean',
        default: false,
        description:
          'An upstream identity seen for the first time whose email it says is verified links to the local user with that verified email without asking; false: that user proves the local account first (password or passkey).',
      },
      createUsers: { type: 'boolean', default: true, description: 'Create a user just in time for an upstream identity that finds none.' },
      timeoutSeconds: { type: 'integer', minimum: 1, maximum: 60, default: 5, description: 'Each request to it gives up after this long.' },
      endUpstreamSession: {
        type: 'boolean',
        default: false,
        description: 'Logging out here also ends the session at it (RP-initiated logout) when it has an end_session_endpoint.',
      },
      authorizationEndpoint: endpoint('authorization endpoint'),
      tokenEndpoint: endpoint('token endpoint'),
      userinfoEndpoint: endpoint('UserInfo endpoint (the claims, read with the access token)'),
    },
  },
} as const;

const ID_SYNTAX = /^[a-z0-9-]{1,32}$/;

/** IDP_<ID>_CLIENT_SECRET: the id upper-cased, - as _. */
export const clientSecretVariable = (id: string): string => `IDP_${id.toUpperCase().replace(/-/g, '_')}_CLIENT_SECRET`;

/**
 * Takes clientSecret out of each entry of the unvalidated config (the schema would call it an unknown key): a secret
 * in the JSON is refused with where it belongs instead.
 */
export function secretsInJsonProblems(raw: Record<string, unknown>): string[] {
  const entries = raw.identityProviders;
  if (!Array.isArray(entries)) return [];
  const problems: string[] = [];
  entries.forEach((entry: unknown, index) => {
    if (typeof entry !== 'object' || entry === null || !('clientSecret' in entry)) return;
    const id = (entry as { id?: unknown }).id;
    const variable = clientSecretVariable(typeof id === 'string' ? id : '<ID>');
    problems.push(
      `identityProviders.${index}.clientSecret: not in the config file: set the environment variable ${variable} or clientSecretFile`,
    );
    delete (entry as { clientSecret?: unknown }).clientSecret;
  });
  return problems;
}

/** Why the entries cannot be used as they are, one line each with its path; resolves each entry's clientSecret. */
export function identityProviderProblems(
  entries: IdentityProviderConfig[],
  localPasswords: boolean,
  env: Record<string, string | undefined>,
): string[] {
  const problems: string[] = [];
  const seen = new Set<string>();
  if (!localPasswords && entries.length === 0)
    problems.push('authentication.localPasswords: false needs at least one of identityProviders (nobody could sign in)');
  entries.forEach((entry, index) => {
    const at = `identityProviders.${index}`;
    if (!ID_SYNTAX.test(entry.id)) problems.push(`${at}.id: ${JSON.stringify(entry.id)} must be 1 to 32 of a-z, 0-9 and -`);
    if (seen.has(entry.id)) problems.push(`${at}.id: ${entry.id} is listed twice`);
    seen.add(entry.id);
    if (entry.type === 'oauth2')
      for (const key of ['authorizationEndpoint', 'tokenEndpoint', 'userinfoEndpoint'] as const)
        if (entry[key] === null) problems.push(`${at}.${key}: needed by type oauth2 (nothing is discovered)`);
    problems.push(...clientSecretProblems(entry, at, env), ...logoProblems(entry, at), ...privateKeyProblems(entry, at));
    problems.push(...publicClientProblems(entry, at));
    // Plain http leaves the code and the tokens to anyone on the way: only for an upstream on this machine.
    for (const key of ['issuer', 'authorizationEndpoint', 'tokenEndpoint', 'userinfoEndpoint'] as const) {
      const url = entry[key];
      if (url !== null && new URL(url).protocol === 'http:' && !LOOPBACK.has(new URL(url).hostname))
        problems.push(`${at}.${key}: http is only for a provider on this machine (localhost, 127.0.0.1, [::1]); use https`);
    }
  });
  return problems;
}

/** A provider without client authentication is a public client, which PKCE alone keeps its codes to (RFC 9700 2.1.1). */
export const isPublicClient = (entry: IdentityProviderConfig): boolean => !entry.clientSecret && entry.privateKeyJwt === null;

function publicClientProblems(entry: IdentityProviderConfig, at: string): string[] {
  if (!isPublicClient(entry) || entry.usePkce) return [];
  return [
    `${at}.usePkce: false needs client authentication: set ${clientSecretVariable(entry.id)}, clientSecretFile or privateKeyJwt (a public client must use PKCE)`,
  ];
}

// The key types each assertion algorithm signs with (RFC 7518 section 3, RFC 8037).
const KEY_TYPES: Readonly<Record<string, string>> = { RS256: 'rsa', PS256: 'rsa', ES256: 'ec', EdDSA: 'ed25519' };

/** The privateKeyJwt key file must be readable and hold a private key of its alg: a PKCS#8 PEM or a private JWK. */
function privateKeyProblems({ privateKeyJwt }: IdentityProviderConfig, at: string): string[] {
  if (privateKeyJwt === null) return [];
  const { keyFile, alg } = privateKeyJwt;
  let text: string;
  try {
    text = readFileSync(keyFile, 'utf8');
  } catch (error) {
    return [`${at}.privateKeyJwt.keyFile: cannot read ${keyFile}: ${(error as NodeJS.ErrnoException).code ?? 'unreadable'}`];
  }
  let key: KeyObject;
  try {
    if (text.trimStart().startsWith('{')) key = createPrivateKey({ key: JSON.parse(text) as JsonWebKey, format: 'jwk' });
    else if (text.includes('-----BEGIN PRIVATE KEY-----')) key = createPrivateKey(text);
    else throw new Error('not PKCS#8');
  } catch {
    return [`${at}.privateKeyJwt.keyFile: ${keyFile} holds no private key (a PKCS#8 PEM, "BEGIN PRIVATE KEY", or a private JWK)`];
  }
  const wanted = KEY_TYPES[alg] ?? alg;
  return key.asymmetricKeyType === wanted
    ? []
    : [`${at}.privateKeyJwt.keyFile: ${keyFile} is a ${key.asymmetricKeyType} key, not one of ${alg}`];
}

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

/** The content type of each logo file extension served. */
export const LOGO_TYPES: Readonly<Record<string, string>> = {
  '.png': 'image/png',
  '.svg': 'image/svg+xml',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
};

const MAX_LOGO_BYTES = 100 * 1024;

function logoProblems({ logoFile }: IdentityProviderConfig, at: string): string[] {
  if (logoFile === null) return [];
  if (LOGO_TYPES[extname(logoFile).toLowerCase()] === undefined) return [`${at}.logoFile: must be a .png, .svg or .jpg file`];
  try {
    const { size } = statSync(logoFile);
    return size > MAX_LOGO_BYTES ? [`${at}.logoFile: ${size} bytes, more than ${MAX_LOGO_BYTES}`] : [];
  } catch (error) {
    return [`${at}.logoFile: cannot read ${logoFile}: ${(error as NodeJS.ErrnoException).code ?? 'unreadable'}`];
  }
}

function clientSecretProblems(entry: IdentityProviderConfig, at: string, env: Record<string, string | undefined>): string[] {
  const variable = clientSecretVariable(entry.id);
  const fromEnv = env[variable];
  let secret: string | null = null;
  if (fromEnv !== undefined && fromEnv !== '') {
    if (entry.clientSecretFile !== null) return [`${at}.clientSecretFile: ${variable} is set too: keep one of them`];
    secret = fromEnv;
  } else if (entry.clientSecretFile !== null) {
    try {
      secret = readFileSync(entry.clientSecretFile, 'utf8').trim();
    } catch (error) {
      return [`${at}.clientSecretFile: cannot read ${entry.clientSecretFile}: ${(error as NodeJS.ErrnoException).code ?? 'unreadable'}`];
    }
  }
  // Not enumerable: whatever prints or copies the config (`config check --print`, a log of it, a spread) leaves it out.
  Object.defineProperty(entry, 'clientSecret', { value: secret, enumerable: false });
  if (secret !== null && entry.privateKeyJwt !== null)
    return [`${at}.privateKeyJwt: a client secret is given too (${variable} or clientSecretFile): keep one way to authenticate`];
  return [];
}
