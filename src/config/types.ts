// The loaded, defaulted and frozen configuration. Mirrors schema.ts; test/unit/config-schema.test.ts keeps
// the two in step by loading every default.

import type { AcrValues, SecondFactorRequirement } from './authentication-schema.js';
import type { PasskeysConfig } from './passkeys-schema.js';
import type { LocalizedText, PageLocale } from './page-locales.js';
import type { BackchannelLogoutConfig } from './backchannel-logout-schema.js';
import type { DPOP_ALGORITHMS } from './dpop-schema.js';
import type { REGISTRABLE_GRANT_TYPES, REGISTRATION_POLICIES } from './registration-schema.js';
import type { TokenExchangeConfig } from './token-exchange-schema.js';
import type { TrustedIssuerConfig } from './trusted-issuers-schema.js';
import type { IdentityProviderConfig } from './identity-providers-schema.js';

export type GrantFlow =
  | 'authorization_code'
  | 'client_credentials'
  | 'refresh_token'
  | 'password'
  | 'implicit'
  | 'urn:ietf:params:oauth:grant-type:device_code'
  | 'urn:ietf:params:oauth:grant-type:jwt-bearer'
  | 'urn:ietf:params:oauth:grant-type:token-exchange';
export type PkceMethod = 'S256' | 'plain';

export type IntrospectionRuleConfig =
  | { rule: 'sameApplication' }
  | { rule: 'tokenApplication' }
  | { rule: 'publicToken' }
  | { rule: 'audience' }
  | { rule: 'clients'; clientIds: string[] }
  | { rule: 'bearerScope'; scope: string };

export type IntrospectionFieldSource =
  'subject' | 'resourceOwnerId' | 'resourceOwner.username' | 'application.uid' | 'application.name' | { value: unknown };

export interface Config {
  /** Set by the loader: what the file said in an older way that still works (renamed keys), one sentence each. */
  deprecations: string[];
  baseUrl: string;
  allowInsecureIssuer: boolean;
  host: string;
  port: number;
  trustProxy: boolean | number | string | string[];
  requestTimeoutSeconds: number;
  hsts: { maxAgeSeconds: number | null; includeSubDomains: boolean; preload: boolean };
  cors: { allowedOrigins: string[] };
  metrics: {
    host: string;
    port: number | null;
    clientIdLabels: boolean;
    /** env METRICS_TOKEN only (never the file): the Bearer token /metrics requires; null when unset. */
    token?: string | null;
  };
  telemetry: { clientIdAttribute: 'plain' | 'hashed' | 'none' };
  audit: { retentionDays: number };
  dataDir: string;
  databaseUrl: string | null;
  databaseReadUrl: string | null;
  databasePoolSize: number;
  databasePreparedStatements: boolean;
  databaseFailoverRetrySeconds: number;
  databaseDirectUrl: string | null;
  /** After loading: the contents of sessionSecretFile when that is set. */
  sessionSecret: string | null;
  sessionSecretFile: string | null;
  log: { level: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent'; format: 'json' | 'pretty' };
  accessTokenExpiresIn: number | null;
  authorizationCodeExpiresIn: number;
  /** Issue 35: the acr issued for each level of sign-in (src/oauth/authentication-context.ts). */
  authentication: { acr: AcrValues; passkeys: PasskeysConfig; requireSecondFactor: SecondFactorRequirement; localPasswords: boolean };
  deviceAuthorization: { expiresIn: number; interval: number; maxEntriesPerCode: number };
  /** Issue 36: RFC 9126 pushed authorization requests. */
  pushedAuthorizationRequests: { required: boolean; expiresIn: number };
  grantFlows: GrantFlow[];
  defaultScopes: string[];
  optionalScopes: string[];
  scopeDescriptions: Record<string, LocalizedText>;
  defaultLocale: PageLocale;
  enforceConfiguredScopes: boolean;
  refreshTokens: { expiresIn: number | null; reuseDetection: boolean; graceSeconds: number };
  reuseAccessToken: boolean;
  revokePreviousClientCredentialsToken: boolean;
  revokePreviousAuthorizationCodeToken: boolean;
  pkce: { required: 'none' | 'public' | 'all'; methods: PkceMethod[] };
  forceSslInRedirectUri: boolean;
  skipAuthorization: { clients: string[]; whenPreviouslyAuthorized: boolean };
  introspection: {
    enabled: boolean;
    allow: IntrospectionRuleConfig[];
    response: Record<string, IntrospectionFieldSource>;
  };
  hashTokens: boolean;
  hashApplicationSecrets: boolean;
  admin: { username: string; passwordHash: string | null; password?: string | null };
  openid: { enabled: boolean; idTokenExpiresIn: number; pairwiseSalt: string | null; backchannelLogout: BackchannelLogoutConfig };
  dpop: {
    algorithms: Array<(typeof DPOP_ALGORITHMS)[number]>;
    proofMaxAgeSeconds: number;
    clockToleranceSeconds: number;
    nonce: { required: boolean; rotateSeconds: number };
  };
  trustedIssuers: TrustedIssuerConfig[];
  /** Issue 37: upstream identity providers to sign in through (src/oauth/federation/). */
  identityProviders: IdentityProviderConfig[];
  tokenExchange: TokenExchangeConfig;
  registration: {
    policy: (typeof REGISTRATION_POLICIES)[number];
    /** Resolved by the loader: null in the file stands for defaultScopes (+ the OpenID scopes while openid.enabled). */
    allowedScopes: string[];
    allowedGrantTypes: Array<(typeof REGISTRABLE_GRANT_TYPES)[number]>;
    maxOpenRegistrations: number;
    perAddressPerMinute: number;
    unusedClientLifetimeSeconds: number;
    clientIdMetadataDocuments: {
      enabled: boolean;
      allowPrivateAddresses: boolean;
      maxBytes: number;
      timeoutMs: number;
      maxCacheSeconds: number;
      firstFetchesPerAddressPerMinute: number;
      maxClients: number;
    };
  };
  keys: {
    algorithms: Array<'RS256' | 'ES256' | 'EdDSA'>;
    publishAheadSeconds: number;
    rotateAfterDays: number;
    /** env KEY_ENCRYPTION_KEY only (never the file): 32 bytes, hex or base64. */
    encryptionKey?: string | null;
  };
  rateLimit: {
    enabled: boolean;
    maxFailures: number;
    windowSeconds: number;
    lockoutSeconds: number;
    maxUserNamesPerAddress: number;
    perClientPerMinute: number | null;
  };
  realm: string;
  bodyLimit: number;
  extensions: string | null;
}

/** Deeply partial config, as written in config.json or passed to buildServer in tests. */
export type ConfigInput = { [K in keyof Config]?: Config[K] extends object ? Partial<Config[K]> | Config[K] : Config[K] };

export type Readonly<T> = { readonly [K in keyof T]: T[K] extends object ? Readonly<T[K]> : T[K] };
