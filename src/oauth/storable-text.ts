// Text this service stores or looks up in PostgreSQL: a NUL cannot be held in a text column (the statement fails, a
// 500), and an unpaired UTF-16 surrogate is stored as U+FFFD, so two different subjects ("z\ud800", "z\ufffd") would
// become one user. What others send (a signed assertion's claims, an upstream's ID token, a registration's metadata)
// is refused with such text rather than stored changed.

// A NUL, a high surrogate not followed by a low one, or a low one not preceded by a high one.
// eslint-disable-next-line no-control-regex
const UNSTORABLE = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** The first string in `value` (a claim, a JSON body, nested anywhere) that cannot be stored as it is; null for none. */
export function unstorableText(value: unknown, depth = 0): string | null {
  if (typeof value === 'string') return UNSTORABLE.test(value) ? value : null;
  // Deeper than any claim set or metadata document this service reads: such nesting is refused elsewhere, not walked.
  if (typeof value !== 'object' || value === null || depth > 32) return null;
  for (const [key, item] of Object.entries(value)) {
    const found = unstorableText(key, depth + 1) ?? unstorableText(item, depth + 1);
    if (found !== null) return found;
  }
  return null;
}

/** A sentence for the refusal: what the text holds. */
export const UNSTORABLE_TEXT = 'must not hold a NUL character or an unpaired UTF-16 surrogate';
