// JSON that others send (a client's JWK Set, a request object, authorization_details, a config file) is parsed at any
// depth, but this service copies it or turns it back into text (structuredClone, JSON.stringify), which overflows the
// stack at a few thousand levels: a 500 for 12 kB of brackets, or a boot that says only "Maximum call stack size
// exceeded". Nothing it keeps nests more than a few levels (a JWK Set three, an authorization_details object a
// handful), so deeper is refused as the input's fault. Here, under src/config, so that the config loader and the
// domain (src/oauth/json-nesting.ts) share the rule.

export const MAX_JSON_NESTING = 32;

/**
 * Whether `value` holds objects or arrays more than MAX_JSON_NESTING levels deep, counting `value` itself as `level`
 * (a member of a document's object: 2); looks no deeper than that.
 */
export function nestedTooDeeply(value: unknown, level = 1): boolean {
  if (typeof value !== 'object' || value === null) return false;
  if (level > MAX_JSON_NESTING) return true;
  return Object.values(value).some((item) => nestedTooDeeply(item, level + 1));
}

/** The sentence of a refusal, after what is nested ("authorization_details is"). */
export const NESTED_TOO_DEEPLY = `nested too deeply (at most ${MAX_JSON_NESTING} levels of objects and arrays)`;
