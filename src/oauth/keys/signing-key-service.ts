import type { Config } from '../../config/types.js';
import type * as KeyMaterial from './signing-key-material.js';
import {
  activeSigningKey,
  plannedSuccessor,
  publishedKeys,
  rotatedByHand,
  type SigningAlgorithm,
  type SigningKeyRecord,
  type SigningKeySettings,
} from './signing-keys.js';
import type { Stores } from '../store.js';
import { MAX_LIFETIME } from '../resources/resource-lifetime.js';

// The signing keys' lifecycle (signing-keys.ts) carried out on the shared table. Every change runs under one
// lock across instances, on the rows as they are then: a rotation started on several instances at once makes
// exactly one key.

// jose makes the keys, loaded when a key is first made: `keys list` and the other commands make none (issue 30).
const generateSigningKey = async (alg: SigningAlgorithm): ReturnType<typeof KeyMaterial.generateSigningKey> =>
  (await import('./signing-key-material.js')).generateSigningKey(alg);

export interface SigningKeyDeps {
  stores: Pick<Stores, 'signingKeys'>;
  config: Readonly<Pick<Config, 'keys' | 'accessTokenExpiresIn' | 'openid'>>;
  now: () => Date;
  /**
   * Told of the keys `ensureSigningKeys` made, once its lock is released: the service records them in the audit
   * trail (signing-key-events.ts). The CLI's `keys` commands record the keys they make in their own events.
   */
  keysMade?: (keys: SigningKeyRecord[]) => Promise<void>;
}

/**
 * What the lifecycle needs from the config: anything a key signs lives at most as long as an access or ID token, and
 * a resource may give its JWT access tokens up to a day (its access_token_lifetime, in the database, changed at any
 * time), as long as a JWT access token lives when access tokens never expire (mintAccessToken): a retired key stays
 * published that long, so no API refuses a token it signed before the token expires.
 */
export function signingKeySettings(config: SigningKeyDeps['config']): SigningKeySettings {
  const { publishAheadSeconds, rotateAfterDays } = config.keys;
  const longest = Math.max(config.accessTokenExpiresIn ?? 0, config.openid.idTokenExpiresIn, MAX_LIFETIME);
  return { publishAheadSeconds, rotateAfterDays, maxTokenLifetimeSeconds: longest };
}

/** The algorithms kept signing-ready: the configured ones, RS256 always (OpenID Connect's default). */
export const signingAlgorithms = (config: SigningKeyDeps['config']): SigningAlgorithm[] => [
  ...new Set<SigningAlgorithm>(['RS256', ...config.keys.algorithms]),
];

/** Makes the keys the lifecycle needs now (a first key, or a successor due); returns those it made. */
export async function ensureSigningKeys(deps: SigningKeyDeps, algorithms = signingAlgorithms(deps.config)): Promise<SigningKeyRecord[]> {
  const settings = signingKeySettings(deps.config);
  // Most calls (every start, every instance's timer) find nothing due: they read the keys and take no lock (a Prisma
  // transaction). Keys are only added or retired, and `keys retire` calls this after its retirement: a key due since
  // this read is made by the next call, as one due since the locked read below would be.
  const current = await deps.stores.signingKeys.list();
  if (!algorithms.some((alg) => plannedSuccessor(current, alg, settings, deps.now()))) return [];
  const made = await deps.stores.signingKeys.exclusively(async (locked) => {
    const made: SigningKeyRecord[] = [];
    const keys = await locked.list();
    for (const alg of algorithms) {
      const now = deps.now();
      const times = plannedSuccessor(keys, alg, settings, now);
      if (times) made.push(await locked.create(await generateSigningKey(alg), { createdAt: now, ...times }));
    }
    return made;
  });
  if (made.length > 0) await deps.keysMade?.(made);
  return made;
}

/** `keys rotate`: a new key of `alg`, published now, signing after the publish-ahead window. */
export async function rotateSigningKey(deps: SigningKeyDeps, alg: SigningAlgorithm): Promise<SigningKeyRecord> {
  const settings = signingKeySettings(deps.config);
  return deps.stores.signingKeys.exclusively(async (locked) => {
    const now = deps.now();
    return locked.create(await generateSigningKey(alg), { createdAt: now, ...rotatedByHand(settings, now) });
  });
}

/**
 * `keys retire <kid>`: the key leaves the JWKS at once and stops signing within the signers' list lifetime
 * (token-signer.ts), so whatever it signed stops validating
 * (the answer to a compromised key); a new key signs at once if it was the last one of its algorithm.
 */
export async function retireSigningKey(deps: SigningKeyDeps, kid: string): Promise<{ retired: boolean; made: SigningKeyRecord[] }> {
  const retired = await deps.stores.signingKeys.exclusively((locked) => locked.retire(kid, deps.now()));
  return { retired, made: retired ? await ensureSigningKeys(deps) : [] };
}

export type SigningKeyState = 'signing' | 'published ahead' | 'published (no longer signing)' | 'expired' | 'retired';

/** Every key with what it is doing now, for `keys list`. */
export async function describeSigningKeys(deps: SigningKeyDeps): Promise<Array<SigningKeyRecord & { state: SigningKeyState }>> {
  const keys = await deps.stores.signingKeys.list();
  const now = deps.now();
  const published = new Set(publishedKeys(keys, signingKeySettings(deps.config), now));
  const signing = new Set(signingAlgorithms(deps.config).map((alg) => activeSigningKey(keys, alg, now)));
  return keys.map((key) => ({ ...key, state: stateOf(key, { published: published.has(key), signing: signing.has(key), now }) }));
}

function stateOf(key: SigningKeyRecord, { published, signing, now }: { published: boolean; signing: boolean; now: Date }): SigningKeyState {
  if (key.retiredAt !== null) return 'retired';
  if (signing) return 'signing';
  if (!published) return 'expired';
  return key.signsFrom > now ? 'published ahead' : 'published (no longer signing)';
}

/** The JWKS (RFC 7517 section 5): the public keys published now. */
export async function publishedJwks(deps: SigningKeyDeps): Promise<{ keys: Record<string, unknown>[] }> {
  const keys = publishedKeys(await deps.stores.signingKeys.list(), signingKeySettings(deps.config), deps.now());
  return { keys: keys.map((key) => key.publicJwk) };
}
