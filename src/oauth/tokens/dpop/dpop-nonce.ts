import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Config } from '../../../config/types.js';

// RFC 9449 section 8: server nonces without server state. A nonce is an HMAC of the current time window under a
// key derived from the session secret, which every instance shares: one instance's nonce is good on the others,
// for this window and the one after it.

export interface DpopNonces {
  /** The nonce to hand out now (the DPoP-Nonce header). */
  current(now: Date): string;
  accepts(nonce: string, now: Date): boolean;
}

export function dpopNonces(config: Readonly<Pick<Config, 'sessionSecret' | 'dpop'>>): DpopNonces | null {
  if (config.sessionSecret === null) return null;
  const key = createHmac('sha256', config.sessionSecret).update('oauth-service DPoP nonces').digest();
  const rotateMs = config.dpop.nonce.rotateSeconds * 1000;
  const nonceOf = (window: number) => createHmac('sha256', key).update(String(window)).digest('base64url');
  const windowOf = (now: Date) => Math.floor(now.getTime() / rotateMs);
  const same = (a: string, b: string) => a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));
  return {
    current: (now) => nonceOf(windowOf(now)),
    accepts: (nonce, now) => same(nonce, nonceOf(windowOf(now))) || same(nonce, nonceOf(windowOf(now) - 1)),
  };
}
