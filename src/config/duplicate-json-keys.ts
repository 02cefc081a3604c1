// JSON.parse keeps the last of two members with one name (RFC 8259 section 4: names SHOULD be unique, and what a
// parser does otherwise is unpredictable). In a provisioning file a name written twice (a merge gone wrong) would
// silently drop what the first declared, and --prune would then delete it; in a config file the first setting would
// be silently unused: both files are refused instead.

/**
 * Where `text`, which JSON.parse has accepted, first names one member twice in an object: its path (`$.users`,
 * `$.applications[0].uid`); null when no object does.
 */
export function firstDuplicateKey(text: string): string | null {
  let at = 0;
  const skipSpace = () => {
    while (at < text.length && ' \t\n\r'.includes(text[at]!)) at += 1;
  };
  const readString = (): string => {
    const start = at;
    at += 1;
    while (text[at] !== '"') at += text[at] === '\\' ? 2 : 1;
    at += 1;
    return JSON.parse(text.slice(start, at)) as string;
  };
  // Each container ends at its closing bracket; a member or element list is separated by commas (the text is valid).
  const value = (path: string): string | null => {
    skipSpace();
    const opening = text[at];
    if (opening === '"') return (readString(), null);
    if (opening !== '{' && opening !== '[') {
      while (at < text.length && !',]} \t\n\r'.includes(text[at]!)) at += 1;
      return null;
    }
    at += 1;
    skipSpace();
    const closing = opening === '{' ? '}' : ']';
    const names = new Set<string>();
    for (let index = 0; text[at] !== closing; index += 1) {
      skipSpace();
      let member = `${path}[${index}]`;
      if (opening === '{') {
        const name = readString();
        member = `${path}.${name}`;
        if (names.has(name)) return member;
        names.add(name);
        skipSpace();
        at += 1; // the colon
      }
      const found = value(member);
      if (found !== null) return found;
      skipSpace();
      if (text[at] === ',') at += 1;
    }
    at += 1;
    return null;
  };
  return value('$');
}
