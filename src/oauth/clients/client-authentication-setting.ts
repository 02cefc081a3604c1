import type { Config } from '../../config/types.js';
import { TOKEN_ENDPOINT_AUTH_METHODS, type ApplicationRecord, type TokenEndpointAuthMethod } from './application-store.js';
import { jwksText, parseJwks } from './client-assertion/client-jwks.js';
import { hasControlCharacter } from '../control-characters.js';
import { isInternalHost } from './registration/client-registration-uris.js';

// How an application authenticates at the token endpoint (RFC 7591 section 2 token_endpoint_auth_method, issue 34)
// and the public keys of a private_key_jwt client (jwks, or jwks_uri), as the admin form, the JSON API and the CLI
// spell them. Registration and metadata documents check the same rules (clientAuthenticationProblem).

export interface ClientAuthenticationFields {
  /** One of TOKEN_ENDPOINT_AUTH_METHODS; blank: derived from confidential. undefined keeps what is stored. */
  tokenEndpointAuthMethod?: string | undefined;
  /** A JWK Set as JSON text; blank removes it. undefined keeps what is stored. */
  jwks?: string | undefined;
  /** An https URL serving the client's JWK Set; blank removes it. undefined keeps what is stored. */
  jwksUri?: string | undefined;
}

export type ClientAuthenticationField = 'token_endpoint_auth_method' | 'jwks' | 'jwks_uri';

interface Effective {
  method: string | null;
  confidential: boolean;
  jwks: string | null;
  jwksUri: string | null;
}

/**
 * Why these settings cannot be (field and message), for the client as it will be stored; empty when they can.
 * `allowHttp`: development (documents from private addresses) also accepts an http jwks_uri.
 */
export function clientAuthenticationErrors(
  fields: ClientAuthenticationFields & { confidential: boolean },
  config: Readonly<Config>,
  current?: ApplicationRecord,
): [ClientAuthenticationField, string][] {
  const errors: [ClientAuthenticationField, string][] = [];
  const effective: Effective = {
    method:
      blankToNull(fields.tokenEndpointAuthMethod) ??
      (fields.tokenEndpointAuthMethod === undefined ? (current?.tokenEndpointAuthMethod ?? null) : null),
    confidential: fields.confidential,
    jwks: fields.jwks === undefined ? (current?.jwks ?? null) : blankToNull(fields.jwks),
    jwksUri: fields.jwksUri === undefined ? (current?.jwksUri ?? null) : blankToNull(fields.jwksUri),
  };
  if (fields.jwks !== undefined && effective.jwks !== null) {
    try {
      parseJwks(effective.jwks);
    } catch (error) {
      errors.push(['jwks', `The ${(error as Error).message}.`]);
    }
  }
  if (fields.jwksUri !== undefined && effective.jwksUri !== null) {
    const problem = jwksUriProblem(effective.jwksUri, config.registration.clientIdMetadataDocuments.allowPrivateAddresses);
    if (problem !== null) errors.push(['jwks_uri', problem]);
  }
  const problem = clientAuthenticationProblem(effective, config);
  if (problem !== null) errors.push([problem.field, problem.message]);
  return errors;
}

/** The rule between the method, the client's kind and its keys; null when they agree. */
export function clientAuthenticationProblem(
  { method, confidential, jwks, jwksUri }: Effective,
  config: Readonly<Config>,
): { field: ClientAuthenticationField; message: string } | null {
  const field = 'token_endpoint_auth_method';
  if (jwks !== null && jwksUri !== null) return { field: 'jwks', message: 'Give jwks or jwks_uri, not both (RFC 7591 section 2).' };
  if (method === null) return null;
  if (!(TOKEN_ENDPOINT_AUTH_METHODS as readonly string[]).includes(method))
    return { field, message: `Token endpoint auth method must be one of ${TOKEN_ENDPOINT_AUTH_METHODS.join(', ')}.` };
  // A public client has neither a secret nor keys to prove itself with; a confidential one has a secret or keys, and
  // RFC 7591 section 2's none is a public client's (the admin's pages and apps show would describe it wrongly).
  if (!confidential && method !== 'none') return { field, message: `A public client cannot use ${method}.` };
  if (confidential && method === 'none')
    return { field, message: 'A confidential client cannot use none: it authenticates (make it public to use none).' };
  if (method === 'private_key_jwt' && jwks === null && jwksUri === null)
    return { field, message: 'The private_key_jwt method needs the public keys: jwks or jwks_uri.' };
  // HS256 (RFC 7518 section 3.2) is keyed with the secret itself, which hashed storage no longer has.
  if (method === 'client_secret_jwt' && config.hashApplicationSecrets)
    return { field, message: 'The client_secret_jwt method needs client secrets stored as they are (hashApplicationSecrets: false).' };
  return null;
}

/**
 * Whether a client is issued a client secret. A public client has none, and a private_key_jwt client proves itself
 * with its key: a secret would never be accepted from it (client-authentication.ts), so it gets none either. The
 * default method (null) authenticates with the secret, client_secret_jwt keys its HMAC with it. Registration
 * (RFC 7591) and the admin's applications both ask this.
 */
export const usesClientSecret = (client: { confidential: boolean; tokenEndpointAuthMethod: string | null }): boolean =>
  client.confidential && client.tokenEndpointAuthMethod !== 'private_key_jwt';

/**
 * Why a jwks_uri cannot be fetched under the document fetcher's rules; null when it can. `allowPrivate`: the config's
 * allowPrivateAddresses, which lets the fetcher use http and loopback, private or link-local hosts.
 */
export function jwksUriProblem(value: string, allowPrivate: boolean): string | null {
  // WHATWG URL parsing drops some control characters and keeps others (a NUL, which PostgreSQL text cannot store).
  if (hasControlCharacter(value)) return 'The jwks_uri must not contain control characters.';
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'The jwks_uri must be an absolute URL.';
  }
  if (value.length > 2000) return 'The jwks_uri is too long (maximum is 2000 characters).';
  if (url.protocol !== 'https:' && !(allowPrivate && url.protocol === 'http:')) return 'The jwks_uri must be an https URL.';
  if (url.username !== '' || url.password !== '' || url.hash !== '') return 'The jwks_uri must not carry credentials or a fragment.';
  // Said now rather than at the first sign-in, when the fetcher would refuse the address (no key, invalid_client).
  if (!allowPrivate && isInternalHost(url.hostname)) return 'The jwks_uri must not point at a loopback, private or link-local host.';
  return null;
}

/** The stored form of valid settings: a field left undefined is not written. */
export function storedClientAuthentication(fields: ClientAuthenticationFields) {
  const method = fields.tokenEndpointAuthMethod === undefined ? undefined : blankToNull(fields.tokenEndpointAuthMethod);
  const jwks = fields.jwks === undefined ? undefined : blankToNull(fields.jwks);
  const jwksUri = fields.jwksUri === undefined ? undefined : blankToNull(fields.jwksUri);
  return {
    ...(method !== undefined && { tokenEndpointAuthMethod: method as TokenEndpointAuthMethod | null }),
    ...(jwks !== undefined && { jwks: jwks === null ? null : jwksText(JSON.parse(jwks)) }),
    ...(jwksUri !== undefined && { jwksUri }),
  };
}

const blankToNull = (value: string | undefined): string | null => (value === undefined || value.trim() === '' ? null : value.trim());
