// The checks of the numeric options every mode's settings share: a wrong value stops the API at registration, named.

export function nonNegative(name: string, value: number): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) throw new TypeError(`serviceGuard: ${name} must be a number >= 0`);
  return value;
}

export function positive(name: string, value: number): number {
  if (nonNegative(name, value) === 0) throw new TypeError(`serviceGuard: ${name} must be greater than 0`);
  return value;
}

/** Node.js timers fire at once beyond this many milliseconds (a 32-bit delay): every request would time out. */
const MAX_TIMEOUT_MS = 2_147_483_647;

/** A timeout in milliseconds: greater than 0, and one a timer can wait. */
export function timeoutMs(value: number): number {
  if (positive('timeoutMs', value) > MAX_TIMEOUT_MS) throw new TypeError(`serviceGuard: timeoutMs must be at most ${MAX_TIMEOUT_MS}`);
  return value;
}
