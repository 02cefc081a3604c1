// Issue 29 item 10: Unicode format characters (general category Cf) in a name a user is shown. They draw nothing but
// change how the text around them is shown: U+202E RIGHT-TO-LEFT OVERRIDE makes "\u202Eelgoog" read as "google", the
// isolates U+2066-2069 and marks U+200E/U+200F reorder it, U+200B ZERO WIDTH SPACE and U+FEFF make two different
// names look the same. The consent screen is where a user decides whom to trust, so such a name is refused, never
// cleaned (which would store something the client did not send). The price: names that need ZWJ/ZWNJ (some emoji
// sequences, Persian or Indic spellings) must be written without them.

const FORMAT_CHARACTER = /\p{Cf}/u;

/** The first format character of `text` as "U+202E", or null when it has none. */
export function formatCharacterIn(text: string): string | null {
  const found = FORMAT_CHARACTER.exec(text)?.[0];
  return found === undefined ? null : `U+${found.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;
}
