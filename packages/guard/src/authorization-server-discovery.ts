/**
 * The metadata URLs of an issuer, in the order they are tried: RFC 8414 section 3.1 inserts the well-known suffix
 * between the host and the issuer's path (https://host/.well-known/oauth-authorization-server/tenant); OpenID
 * Connect Discovery 1.0 section 4 appends its own to the issuer (https://host/tenant/.well-known/openid-configuration).
 */
export function metadataUrls(issuer: string): string[] {
  const url = new URL(issuer);
  const path = url.pathname.replace(/\/+$/, '');
  return [`${url.origin}/.well-known/oauth-authorization-server${path}`, `${url.origin}${path}/.well-known/openid-configuration`];
}

/**
 * The `jwks_uri` of the issuer's metadata. RFC 8414 section 3.3 (and Discovery section 4.3): the document's
 * `issuer` must be identical to the configured one, otherwise an attacker's metadata could name its own keys.
 * A 404 tries the next URL; anything else wrong throws with the reason.
 */
export async function discoverJwksUri(issuer: string, timeoutMs: number): Promise<string> {
  const failures: string[] = [];
  for (const url of metadataUrls(issuer)) {
    const response = await fetch(url, { headers: { accept: 'application/json' }, signal: AbortSignal.timeout(timeoutMs) });
    if (response.status === 404) {
      failures.push(`${url} answered 404`);
      continue;
    }
    if (response.status !== 200) throw new Error(`${url} answered ${response.status}`);
    const metadata = (await response.json().catch(() => null)) as Record<string, unknown> | null;
    if (metadata === null || typeof metadata !== 'object' || Array.isArray(metadata))
      throw new Error(`${url} answered 200 without a JSON object`);
    if (metadata.issuer !== issuer)
      throw new Error(`${url} names the issuer ${JSON.stringify(metadata.issuer)}, not ${JSON.stringify(issuer)}`);
    const jwksUri = metadata.jwks_uri;
    if (typeof jwksUri !== 'string' || !URL.canParse(jwksUri)) {
      throw new Error(`${url} has no jwks_uri (does the authorization server sign tokens? this service: openid.enabled)`);
    }
    return jwksUri;
  }
  throw new Error(failures.join('; '));
}

/** Discovers once, on first use; a failure is retried on a later use (the JWKS cache's cooldown paces it). */
export function lazyJwksUri(issuer: string, jwksUri: string | undefined, timeoutMs: number): () => Promise<string> {
  let discovered: Promise<string> | null = jwksUri === undefined ? null : Promise.resolve(jwksUri);
  return () => {
    discovered ??= discoverJwksUri(issuer, timeoutMs).catch((error: unknown) => {
      discovered = null;
      throw error;
    });
    return discovered;
  };
}
