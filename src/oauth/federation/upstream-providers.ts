import { readFileSync } from 'node:fs';
import * as client from 'openid-client';
import { importJWK, importPKCS8, type CryptoKey } from 'jose';
import type { IdentityProviderConfig } from '../../config/identity-providers-schema.js';
import type { Config } from '../../config/types.js';
import { configurationFailureOf } from './upstream-failure.js';

// Upstream identity providers (issue 37, config identityProviders): each one's openid-client Configuration. An
// OpenID Provider is discovered (OpenID Connect Discovery 1.0 / RFC 8414) on first use, not at boot, so an upstream
// that is down keeps only its own button from working; the result is cached for the process. A failed discovery is
// not cached (the next sign-in tries again). Key rotation: openid-client keeps the upstream's JWKS for 5 minutes and
// refetches it, once a minute at most, when an ID token names a kid it does not have (oauth4webapi
// getPublicSigKeyFromIssuerJwksUri); a sign-in that still fails its signature check forgets the Configuration
// (forgetUpstream), so the next one discovers again, the jwks_uri included.

type Providers = Map<string, Promise<client.Configuration>>;
const cachesByConfig = new WeakMap<object, Providers>();

/** The entry with this id, or null. */
export function findUpstream(config: Readonly<Config>, id: string): IdentityProviderConfig | null {
  return config.identityProviders.find((entry) => entry.id === id) ?? null;
}

/** The provider's Configuration: discovered once (per config), or built from its endpoints (type oauth2). */
export function upstreamConfiguration(config: Readonly<Config>, entry: IdentityProviderConfig): Promise<client.Configuration> {
  let cache = cachesByConfig.get(config);
  if (!cache) cachesByConfig.set(config, (cache = new Map()));
  let found = cache.get(entry.id);
  if (!found) {
    // Whatever fails here is a failed sign-in with its page, never a 500 (a key file gone since the boot checked it).
    found = configure(entry).catch((error: unknown) => Promise.reject(configurationFailureOf(error)));
    cache.set(entry.id, found);
    found.catch(() => cache.delete(entry.id));
  }
  return found;
}

/** Drops the cached Configuration (its keys failed a check): the next sign-in discovers again. */
export function forgetUpstream(config: Readonly<Config>, id: string): void {
  cachesByConfig.get(config)?.delete(id);
}

// Plain http only for an upstream on this machine (a development upstream); the config check refuses it elsewhere.
const insecure = (entry: IdentityProviderConfig) =>
  [entry.issuer, entry.authorizationEndpoint, entry.tokenEndpoint, entry.userinfoEndpoint].some(
    (url) => url !== null && new URL(url).protocol === 'http:',
  );

async function configure(entry: IdentityProviderConfig): Promise<client.Configuration> {
  const auth = await clientAuthentication(entry);
  let configuration: client.Configuration;
  if (entry.type === 'oauth2') {
    const server = {
      issuer: entry.issuer,
      authorization_endpoint: entry.authorizationEndpoint!,
      token_endpoint: entry.tokenEndpoint!,
      userinfo_endpoint: entry.userinfoEndpoint!,
    };
    configuration = new client.Configuration(server, entry.clientId, undefined, auth);
    if (insecure(entry)) client.allowInsecureRequests(configuration);
  } else {
    // OpenID Connect Core 3.1.3.7 item 6 lets a client skip the ID token's signature when it came straight from the
    // token endpoint over TLS; we check it anyway (enableNonRepudiationChecks): the user is created or linked on its word.
    const execute = [client.enableNonRepudiationChecks, ...(insecure(entry) ? [client.allowInsecureRequests] : [])];
    configuration = await client.discovery(new URL(entry.issuer), entry.clientId, undefined, auth, {
      timeout: entry.timeoutSeconds,
      execute,
    });
  }
  configuration.timeout = entry.timeoutSeconds;
  return configuration;
}

async function clientAuthentication(entry: IdentityProviderConfig): Promise<client.ClientAuth> {
  if (entry.privateKeyJwt !== null) {
    const { keyFile, alg } = entry.privateKeyJwt;
    const text = readFileSync(keyFile, 'utf8');
    if (text.trimStart().startsWith('{')) {
      const jwk = JSON.parse(text) as { kid?: string };
      const key = (await importJWK(jwk, alg)) as CryptoKey;
      return client.PrivateKeyJwt(jwk.kid === undefined ? key : { key, kid: jwk.kid });
    }
    return client.PrivateKeyJwt(await importPKCS8(text, alg));
  }
  // RFC 6749 section 2.3.1: every authorization server supports HTTP Basic for a client secret.
  return entry.clientSecret ? client.ClientSecretBasic(entry.clientSecret) : client.None();
}
