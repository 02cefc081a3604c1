// Where a config file stops being JSON, as an editor shows it (line and column, from 1), instead of the character
// offset JSON.parse reports, or none at all: V8 gives no position for an unexpected token ("Unexpected token 'x',
// "..." is not valid JSON"), so then the position is found as the end of the longest prefix that is still the start
// of a valid JSON text.

/** "line L, column C: what went wrong" for the SyntaxError JSON.parse threw on `text`. */
export function jsonSyntaxProblem(text: string, error: SyntaxError): string {
  const given = /at position (\d+)/.exec(error.message);
  const offset = given ? Number(given[1]) : firstUnparsableOffset(text);
  const what = error.message
    .replace(/, (\.\.\.)?".*"(\.\.\.)? is not valid JSON$/s, '')
    .replace(/ in JSON at position \d+.*$/s, '')
    .replace(/ at position \d+.*$/s, '')
    .replaceAll('\n', '\\n');
  const before = text.slice(0, offset).split('\n');
  return `line ${before.length}, column ${before.at(-1)!.length + 1}: ${what}`;
}

/** The offset of the first character no valid JSON text can have there (text.length when the text ends early). */
function firstUnparsableOffset(text: string): number {
  // Being the start of some valid JSON text holds for every prefix up to a point and for none after it.
  let viable = 0;
  let beyond = text.length + 1;
  while (beyond - viable > 1) {
    const middle = Math.floor((viable + beyond) / 2);
    if (startsValidJson(text.slice(0, middle))) viable = middle;
    else beyond = middle;
  }
  return Math.min(viable, text.length);
}

function startsValidJson(prefix: string): boolean {
  try {
    JSON.parse(prefix);
    return true;
  } catch (error) {
    // A truncated text is reported as "Unexpected end", or as a problem at its very end ("Expected ':' ... at position 4").
    const { message } = error as Error;
    const at = /at position (\d+)/.exec(message);
    return message === 'Unexpected end of JSON input' || (at !== null && Number(at[1]) >= prefix.length);
  }
}
