import { createLocalJWKSet, errors, jwtVerify, type JSONWebKeySet, type JWTVerifyGetKey } from 'jose';
import type { OAuthDeps } from '../../deps.js';
import type { ApplicationRecord } from '../../store.js';
import { ClientMetadataDocumentRefused, fetchClientMetadataDocument } from '../metadata-documents/client-metadata-document-fetch.js';
import { jwksProblem, parseJwks } from './client-jwks.js';

// Where a private_key_jwt client's keys come from: its stored jwks, or its jwks_uri fetched under the SSRF rules of
// Client ID Metadata Documents (no private addresses, https, bounded size and time). Fetched sets are kept in this
// process's memory, at most MAX_SETS of them for at most LIFETIME_MS each, so a busy client costs one fetch per
// lifetime; requests arriving during a fetch wait for it, and a failed fetch is kept for REFETCH_COOLDOWN_MS. A key
// id the cached set lacks (the client rotated its keys) fetches again, at most once per REFETCH_COOLDOWN_MS, so
// assertions naming made-up key ids cannot make this server fetch for each of them.

const MAX_SETS = 1000;
const LIFETIME_MS = 10 * 60_000;
const REFETCH_COOLDOWN_MS = 30_000;
const MAX_PARSED_INLINE = 1000;
// RFC 7517 section 8.5.1 registers application/jwk-set+json; many servers answer plain JSON.
const JWKS_MEDIA_TYPES = ['application/json', 'application/jwk-set+json'];

interface CachedSet {
  keys: Promise<JWTVerifyGetKey>;
  fetchedAt: number;
  failed: boolean;
}

/** A JWK Set could not be had: the message is for the client (no addresses or system errors). */
export class ClientKeysUnavailable extends Error {}

export interface ClientKeySource {
  /** The key set to verify with; `refetch`: the cached copy lacked the key, fetch again (if the cooldown allows). */
  (refetch: boolean): Promise<JWTVerifyGetKey>;
  /** Whether asking again with refetch would fetch (jwks_uri, past the cooldown). */
  canRefetch(): boolean;
}

const fetchedSets = new WeakMap<object, Map<string, CachedSet>>();
const inlineSets = new Map<string, JWTVerifyGetKey>();

/** The application's key source; null when it has neither jwks nor jwks_uri. */
export function clientKeySource(deps: OAuthDeps, application: ApplicationRecord): ClientKeySource | null {
  if (application.jwks !== null) {
    const text = application.jwks;
    const source = async () => inlineKeySet(text);
    return Object.assign(source, { canRefetch: () => false });
  }
  if (application.jwksUri === null) return null;
  const uri = application.jwksUri;
  const cache = cacheOf(deps);
  const source = async (refetch: boolean) => {
    const cached = cache.get(uri);
    const age = cached === undefined ? Infinity : deps.now().getTime() - cached.fetchedAt;
    // A failed fetch is remembered for the cooldown too: a broken jwks_uri costs one fetch per cooldown, not one per request.
    const fresh =
      cached !== undefined && (cached.failed ? age < REFETCH_COOLDOWN_MS : age < LIFETIME_MS && !(refetch && age >= REFETCH_COOLDOWN_MS));
    if (fresh) return cached.keys;
    return fetchInto(deps, cache, uri);
  };
  return Object.assign(source, {
    canRefetch: () => {
      const cached = cache.get(uri);
      return cached === undefined || deps.now().getTime() - cached.fetchedAt >= REFETCH_COOLDOWN_MS;
    },
  });
}

type Verification = Parameters<typeof jwtVerify>[2];

/** jose's jwtVerify with the client's keys; a jwks_uri set lacking the key the JWT names is fetched again once. */
export async function verifyWithClientKeys(jwt: string, source: ClientKeySource, options: Verification) {
  try {
    return await jwtVerify(jwt, await source(false), options);
  } catch (error) {
    if (!(error instanceof errors.JWKSNoMatchingKey) || !source.canRefetch()) throw error;
    return jwtVerify(jwt, await source(true), options);
  }
}

// The entry holds the fetch's promise from its start, so requests arriving meanwhile share one fetch.
function fetchInto(deps: OAuthDeps, cache: Map<string, CachedSet>, uri: string): Promise<JWTVerifyGetKey> {
  const entry: CachedSet = { keys: fetchKeySet(deps, uri).then(localKeySet), fetchedAt: deps.now().getTime(), failed: false };
  entry.keys.catch(() => (entry.failed = true));
  cache.delete(uri);
  // Insertion order is age: the first entry is the oldest, dropped when the cache is full.
  if (cache.size >= MAX_SETS) cache.delete(cache.keys().next().value!);
  cache.set(uri, entry);
  return entry.keys;
}

// One cache per configuration object: per running app (tests start several in one process).
function cacheOf(deps: OAuthDeps): Map<string, CachedSet> {
  let cache = fetchedSets.get(deps.config);
  if (!cache) fetchedSets.set(deps.config, (cache = new Map()));
  return cache;
}

/**
 * jose's set of the client's keys. An Ed25519 key labelled alg EdDSA or Ed25519 (RFC 9864's name for the same
 * signature) verifies JWTs whose header names either: jose would pick it only for the name on the key.
 */
function localKeySet(set: JSONWebKeySet): JWTVerifyGetKey {
  const either = (key: JSONWebKeySet['keys'][number]) =>
    key.kty === 'OKP' && key.crv === 'Ed25519' && ['EdDSA', 'Ed25519'].includes(key.alg!);
  return createLocalJWKSet({ ...set, keys: set.keys.map((key) => (either(key) ? { ...key, alg: undefined } : key)) });
}

// jose's local set keeps the keys it imported: parsing once per distinct stored text spares an import per request.
function inlineKeySet(text: string): JWTVerifyGetKey {
  let keys = inlineSets.get(text);
  if (keys) return keys;
  let set: JSONWebKeySet;
  try {
    set = parseJwks(text) as JSONWebKeySet;
  } catch (error) {
    throw new ClientKeysUnavailable(`The client's registered jwks cannot be used: ${(error as Error).message}.`);
  }
  keys = localKeySet(set);
  if (inlineSets.size >= MAX_PARSED_INLINE) inlineSets.delete(inlineSets.keys().next().value!);
  inlineSets.set(text, keys);
  return keys;
}

async function fetchKeySet(deps: OAuthDeps, uri: string): Promise<JSONWebKeySet> {
  const { allowPrivateAddresses, maxBytes, timeoutMs } = deps.config.registration.clientIdMetadataDocuments;
  let document: Record<string, unknown>;
  try {
    ({ document } = await fetchClientMetadataDocument(new URL(uri), {
      allowPrivateAddresses,
      maxBytes,
      timeoutMs,
      ca: deps.documentCa,
      mediaTypes: JWKS_MEDIA_TYPES,
    }));
  } catch (error) {
    if (!(error instanceof ClientMetadataDocumentRefused)) throw error;
    throw new ClientKeysUnavailable(`The client's jwks_uri could not be fetched: ${error.shown}.`);
  }
  const problem = jwksProblem(document);
  if (problem !== null) throw new ClientKeysUnavailable(`The client's jwks_uri does not serve a usable key set: ${problem}.`);
  return document as unknown as JSONWebKeySet;
}
