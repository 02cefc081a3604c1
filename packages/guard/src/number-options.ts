// The checks of the numeric options every mode's settings share: a wrong value stops the API at registration, named.

export function nonNegative(name: string, value: number): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) throw new TypeError(`serviceGuard: ${name} must be a number >= 0`);
  return value;
}

export function positive(name: string, value: number): number {
  if (nonNegative(name, value) === 0) throw new TypeError(`serviceGuard: ${name} must be greater than 0`);
  return value;
}
