import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Stateless server nonces (RFC 9449 section 9): `<period>.<HMAC-SHA256(secret, period)>`, the period being the
 * number of `rotateSeconds` intervals since the epoch. A nonce of the current or the previous period is accepted,
 * so a nonce lives between one and two periods; every API instance with the same secret makes and accepts the same
 * nonces, with nothing stored. The characters (digits, base64url, ".") are all NQCHAR (section 8.1).
 */
export class DpopNonces {
  readonly #secret: Uint8Array;
  readonly #periodMs: number;
  readonly #now: () => number;

  constructor(secret: Uint8Array, rotateSeconds: number, now: () => number) {
    this.#secret = secret;
    this.#periodMs = rotateSeconds * 1000;
    this.#now = now;
  }

  /** The nonce to hand out now. */
  current(): string {
    return this.#nonce(this.#period());
  }

  /** 'current', 'previous' (accepted, but a fresher one should be handed out) or null (not a nonce of ours, or too old). */
  check(nonce: unknown): 'current' | 'previous' | null {
    if (typeof nonce !== 'string' || nonce.length > 128) return null;
    const period = this.#period();
    if (same(nonce, this.#nonce(period))) return 'current';
    if (same(nonce, this.#nonce(period - 1))) return 'previous';
    return null;
  }

  #period(): number {
    return Math.floor(this.#now() / this.#periodMs);
  }

  #nonce(period: number): string {
    return `${period}.${createHmac('sha256', this.#secret).update(`dpop-nonce:${period}`).digest('base64url')}`;
  }
}

function same(a: string, b: string): boolean {
  const left = Buffer.from(a, 'utf8');
  const right = Buffer.from(b, 'utf8');
  return left.length === right.length && timingSafeEqual(left, right);
}
