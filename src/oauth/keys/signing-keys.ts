// The lifecycle of the keys that sign (ID tokens first, JWT access tokens later): which key signs now, which keys
// the JWKS publishes, and when a successor must be made. Pure rules over the stored keys, with `now` given, so
// every instance reading the same rows reaches the same answer.
//
// A key is published from the moment it is made; it starts signing publishAheadSeconds later (so every relying
// party that caches the JWKS has seen it before it meets a token it signed); it signs until a newer key of its
// algorithm starts, which is planned rotateAfterDays after its own start; it stays published until everything it
// signed has expired (maxTokenLifetimeSeconds after it stopped). A retired key is neither published nor used at
// once: whatever it signed stops validating (the answer to a compromised key).

export const SIGNING_ALGORITHMS = ['RS256', 'ES256', 'EdDSA'] as const;
export type SigningAlgorithm = (typeof SIGNING_ALGORITHMS)[number];
export const isSigningAlgorithm = (value: string): value is SigningAlgorithm => (SIGNING_ALGORITHMS as readonly string[]).includes(value);

export interface SigningKeySettings {
  publishAheadSeconds: number;
  rotateAfterDays: number;
  /** The longest lifetime of anything a key signs: it stays published this long after it stops signing. */
  maxTokenLifetimeSeconds: number;
}

export interface SigningKeyRecord {
  kid: string;
  alg: SigningAlgorithm;
  /** The public JWK as published (kty, crv or n/e, kid, alg, use). */
  publicJwk: Record<string, unknown>;
  /** Published from here. */
  createdAt: Date;
  /** Signs from here, until a newer key of its algorithm starts. */
  signsFrom: Date;
  /** When its successor is planned to start signing. */
  rotateAt: Date;
  retiredAt: Date | null;
}

const SECOND = 1000;
const DAY = 86_400 * SECOND;

const live = (keys: readonly SigningKeyRecord[], alg: SigningAlgorithm) => keys.filter((key) => key.alg === alg && key.retiredAt === null);
const newestFirst = (a: SigningKeyRecord, b: SigningKeyRecord) =>
  b.signsFrom.getTime() - a.signsFrom.getTime() || b.createdAt.getTime() - a.createdAt.getTime();

/** The key that signs for `alg` at `now`: of the live keys that have started, the one that started last. */
export function activeSigningKey(keys: readonly SigningKeyRecord[], alg: SigningAlgorithm, now: Date): SigningKeyRecord | null {
  return (
    live(keys, alg)
      .filter((key) => key.signsFrom <= now)
      .sort(newestFirst)[0] ?? null
  );
}

/**
 * The keys whose private key must be usable: the one that signs now for each algorithm, and every live key that
 * starts later (published ahead). A key that only stays published, or a retired one, never signs again.
 */
export function keysThatSign(keys: readonly SigningKeyRecord[], now: Date): SigningKeyRecord[] {
  return keys.filter((key) => key.retiredAt === null && (key.signsFrom > now || activeSigningKey(keys, key.alg, now) === key));
}

/** When `key` stopped signing (a newer key of its algorithm started), or null while it still signs or waits to. */
function supersededAt(keys: readonly SigningKeyRecord[], key: SigningKeyRecord, now: Date): Date | null {
  const starts = live(keys, key.alg)
    .filter((other) => other !== key && other.signsFrom > key.signsFrom && other.signsFrom <= now)
    .map((other) => other.signsFrom.getTime());
  return starts.length === 0 ? null : new Date(Math.min(...starts));
}

/** The keys the JWKS publishes at `now`: live, and not yet past everything they signed. */
export function publishedKeys(keys: readonly SigningKeyRecord[], settings: SigningKeySettings, now: Date): SigningKeyRecord[] {
  return keys.filter((key) => {
    if (key.retiredAt !== null) return false;
    const stopped = supersededAt(keys, key, now);
    return stopped === null || now.getTime() < stopped.getTime() + settings.maxTokenLifetimeSeconds * SECOND;
  });
}

/** The times of a new key of `alg` made at `now`, or null when none is needed yet. */
export function plannedSuccessor(
  keys: readonly SigningKeyRecord[],
  alg: SigningAlgorithm,
  settings: SigningKeySettings,
  now: Date,
): Pick<SigningKeyRecord, 'signsFrom' | 'rotateAt'> | null {
  const newest = live(keys, alg).sort(newestFirst)[0];
  const ahead = settings.publishAheadSeconds * SECOND;
  // No key at all (first start, or every key retired): one signs at once; nothing can have cached an older set.
  if (!newest || activeSigningKey(keys, alg, now) === null) return timesFrom(now, settings);
  if (now.getTime() < newest.rotateAt.getTime() - ahead) return null;
  // Published ahead of its start; if rotation is late (every instance was down), the current key signs meanwhile.
  return timesFrom(new Date(Math.max(newest.rotateAt.getTime(), now.getTime() + ahead)), settings);
}

/** The times of a key made by hand (`keys rotate`): published now, signing after the publish-ahead window. */
export function rotatedByHand(settings: SigningKeySettings, now: Date): Pick<SigningKeyRecord, 'signsFrom' | 'rotateAt'> {
  return timesFrom(new Date(now.getTime() + settings.publishAheadSeconds * SECOND), settings);
}

function timesFrom(signsFrom: Date, settings: SigningKeySettings): Pick<SigningKeyRecord, 'signsFrom' | 'rotateAt'> {
  return { signsFrom, rotateAt: new Date(signsFrom.getTime() + settings.rotateAfterDays * DAY) };
}

/**
 * Seconds a JWKS answer may be cached: a new key is published publishAheadSeconds before it signs, so a cache
 * shorter than that has always seen it in time (half the window, for margin; at most a day).
 */
export function jwksMaxAge(settings: SigningKeySettings): number {
  return Math.max(0, Math.min(86_400, Math.floor(settings.publishAheadSeconds / 2)));
}
