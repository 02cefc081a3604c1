import { randomBytes } from 'node:crypto';
import type { DpopAlgorithm, DpopOptions } from './dpop-options.js';
import { nonNegative, positive } from './number-options.js';

const ASYMMETRIC: readonly DpopAlgorithm[] = [
  'ES256',
  'ES384',
  'ES512',
  'EdDSA',
  'Ed25519',
  'RS256',
  'RS384',
  'RS512',
  'PS256',
  'PS384',
  'PS512',
];
// The service's own list (dpop.algorithms' default, test/unit/guard-sync): a token it binds to a key, the API takes.
export const DEFAULT_DPOP_ALGORITHMS: readonly DpopAlgorithm[] = ['ES256', 'ES384', 'EdDSA', 'Ed25519', 'RS256', 'PS256'];

export interface DpopSettings {
  algorithms: readonly DpopAlgorithm[];
  required: boolean;
  proofMaxAgeSeconds: number;
  clockToleranceSeconds: number;
  /** The public base URL without a trailing slash, or null to use the request's protocol and host. */
  publicUrl: string | null;
  nonce: { required: boolean; secret: Uint8Array; rotateSeconds: number } | null;
  replayCacheMaxEntries: number;
}

/** The dpop option with its defaults, checked at registration so a typo fails the boot. Null when DPoP is off. */
export function dpopSettings(options: DpopOptions | undefined | false): DpopSettings | null {
  if (options === undefined || options === false) return null;
  if (options === null || typeof options !== 'object') throw new TypeError('serviceGuard: dpop must be an object');
  const algorithms = [...(options.algorithms ?? DEFAULT_DPOP_ALGORITHMS)];
  if (algorithms.length === 0 || algorithms.some((alg) => !ASYMMETRIC.includes(alg))) {
    throw new TypeError(`serviceGuard: dpop.algorithms must be a non-empty subset of ${ASYMMETRIC.join(', ')}`);
  }
  return {
    algorithms: Object.freeze([...new Set(algorithms)]),
    required: options.required ?? false,
    proofMaxAgeSeconds: positive('dpop.proofMaxAgeSeconds', options.proofMaxAgeSeconds ?? 300),
    clockToleranceSeconds: nonNegative('dpop.clockToleranceSeconds', options.clockToleranceSeconds ?? 5),
    publicUrl: options.publicUrl === undefined ? null : publicUrl(options.publicUrl),
    nonce: nonceSettings(options.nonce),
    replayCacheMaxEntries: Math.floor(positive('dpop.replayCacheMaxEntries', options.replayCacheMaxEntries ?? 200_000)),
  };
}

function nonceSettings(nonce: DpopOptions['nonce']): DpopSettings['nonce'] {
  if (nonce === undefined) return null;
  const secret =
    nonce.secret === undefined ? randomBytes(32) : typeof nonce.secret === 'string' ? Buffer.from(nonce.secret, 'utf8') : nonce.secret;
  if (!(secret instanceof Uint8Array) || secret.byteLength < 32)
    throw new TypeError('serviceGuard: dpop.nonce.secret must be at least 32 bytes');
  return {
    required: nonce.required === true,
    secret,
    rotateSeconds: positive('dpop.nonce.rotateSeconds', nonce.rotateSeconds ?? 300),
  };
}

function publicUrl(value: unknown): string {
  const url = typeof value === 'string' && URL.canParse(value) ? new URL(value) : null;
  if (!url || (url.protocol !== 'https:' && url.protocol !== 'http:') || url.search !== '' || url.hash !== '') {
    throw new TypeError(
      `serviceGuard: dpop.publicUrl must be an absolute http(s) URL without query or fragment, got ${JSON.stringify(value)}`,
    );
  }
  return `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
}
