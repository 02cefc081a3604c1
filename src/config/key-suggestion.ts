// "Did you mean": a misspelled config key is refused (SPEC 2); naming the key that was probably meant saves the
// operator a trip to the reference. Optimal string alignment distance (Levenshtein plus swapped neighbours, the
// commonest typing slip), compared without case because `baseURL` for `baseUrl` is a slip too.

/** Edits (insert, delete, replace, swap two neighbours) that turn `a` into `b`. */
export function editDistance(a: string, b: string): number {
  const rows = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j += 1) rows[0]![j] = j;
  for (let i = 1; i <= a.length; i += 1) {
    const row = rows[i]!;
    const above = rows[i - 1]!;
    for (let j = 1; j <= b.length; j += 1) {
      const replace = a[i - 1] === b[j - 1] ? 0 : 1;
      row[j] = Math.min(above[j]! + 1, row[j - 1]! + 1, above[j - 1]! + replace);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) row[j] = Math.min(row[j]!, rows[i - 2]![j - 2]! + 1);
    }
  }
  return rows[a.length]![b.length]!;
}

/**
 * The known key closest to `unknown`, when it is close enough to be a slip: about one edit in four characters (at
 * least one), so that `port` never suggests `host`. Ties go to the first key, in the schema's order.
 */
export function closestKey(unknown: string, known: readonly string[]): string | null {
  let best: { key: string; distance: number } | null = null;
  for (const key of known) {
    const distance = editDistance(unknown.toLowerCase(), key.toLowerCase());
    if (distance <= Math.max(1, Math.floor(key.length / 4)) && (best === null || distance < best.distance)) best = { key, distance };
  }
  return best?.key ?? null;
}
