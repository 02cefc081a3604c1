import { createRemoteJWKSet, type JWTVerifyGetKey } from 'jose';

// The public keys of a trusted issuer, from its jwksUri. The URI is the operator's (config trustedIssuers), not a
// client's, so the metadata fetcher's SSRF rules do not apply; the fetch is still bounded in time, and jose caches
// the set (refetching on an unknown kid at most every cooldown) so that a burst of assertions costs one fetch.

const TIMEOUT_MS = 5_000;
const COOLDOWN_MS = 30_000;
const MAX_AGE_MS = 10 * 60_000;

const keySets = new Map<string, JWTVerifyGetKey>();

/** One key set per URI for the life of the process (the config names a handful; it never grows from requests). */
export function issuerKeys(jwksUri: string): JWTVerifyGetKey {
  let keys = keySets.get(jwksUri);
  if (!keys) {
    keys = createRemoteJWKSet(new URL(jwksUri), { timeoutDuration: TIMEOUT_MS, cooldownDuration: COOLDOWN_MS, cacheMaxAge: MAX_AGE_MS });
    keySets.set(jwksUri, keys);
  }
  return keys;
}
