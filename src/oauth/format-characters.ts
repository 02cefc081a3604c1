// Issue 29 item 10: Unicode format characters (general category Cf) in a name a user is shown. They draw nothing but
// change how the text around them is shown: U+202E RIGHT-TO-LEFT OVERRIDE makes "\u202Eelgoog" read as "google", the
// isolates U+2066-2069 and marks U+200E/U+200F reorder it, U+200B ZERO WIDTH SPACE and U+FEFF make two different
// names look the same. The consent screen is where a user decides whom to trust, so such a name is refused, never
// cleaned (which would store something the client did not send). The price: names that need ZWJ/ZWNJ (some emoji
// sequences, Persian or Indic spellings) must be written without them.
//
// Refused with them (a self-registration audit): the line and paragraph separators U+2028/U+2029 (categories Zl, Zp,
// which break the line wherever the name is shown), the letters that draw as blank space (the Hangul fillers U+115F,
// U+1160, U+3164, U+FFA0 and U+2800 BRAILLE PATTERN BLANK: a name padded with them pushes the page's own words away),
// and a stack of more than four combining marks on one letter, which draws over the lines around it (no script needs
// that many: Vietnamese stacks two).

const DECEPTIVE_CHARACTER = /[\p{Cf}\p{Zl}\p{Zp}\u115F\u1160\u3164\uFFA0\u2800]/u;
const STACKED_MARKS = /\p{M}{5,}/u;

/**
 * The first character of `text` that makes it read as something else, as "U+202E" (or "U+0301 stacked" for the
 * first mark of a stack of combining marks), or null when it has none.
 */
export function formatCharacterIn(text: string): string | null {
  const found = DECEPTIVE_CHARACTER.exec(text)?.[0];
  if (found !== undefined) return codePoint(found);
  const stack = STACKED_MARKS.exec(text)?.[0];
  return stack === undefined ? null : `${codePoint(stack)} stacked`;
}

/**
 * Whether the text draws nothing: only white space and default-ignorable code points (variation selectors, U+034F,
 * U+17B4, U+180B...), which a name made of would show as blank as an empty one.
 */
export const drawsNothing = (text: string): boolean => text.replace(/[\p{Default_Ignorable_Code_Point}\s]/gu, '') === '';

const codePoint = (character: string) => `U+${character.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;
