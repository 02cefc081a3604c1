// RFC 9110 section 12.4.2: the weighted lists of the Accept* request headers.

/**
 * The ranges of an Accept* header, most preferred first: by q-value, and in the order sent among equal ones. q=0 means
 * "not this one", so it is dropped; a malformed q-value drops only its own range.
 */
export function rankedRanges(header: string): string[] {
  const ranges: Array<{ range: string; q: number; index: number }> = [];
  header.split(',').forEach((part, index) => {
    const [range = '', ...parameters] = part.split(';').map((piece) => piece.trim());
    const q = qValue(parameters);
    if (range !== '' && q !== null && q > 0) ranges.push({ range, q, index });
  });
  return ranges.sort((a, b) => b.q - a.q || a.index - b.index).map(({ range }) => range);
}

// qvalue = ( "0" [ "." 0*3DIGIT ] ) / ( "1" [ "." 0*3("0") ] ); absent means 1.
function qValue(parameters: readonly string[]): number | null {
  const q = parameters.find((parameter) => /^q\s*=/i.test(parameter));
  if (q === undefined) return 1;
  const value = q.replace(/^q\s*=\s*/i, '');
  return /^(0(\.\d{0,3})?|1(\.0{0,3})?)$/.test(value) ? Number(value) : null;
}
