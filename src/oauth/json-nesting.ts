// JSON that others send (a client's JWK Set, a request object, authorization_details) is parsed at any depth, but
// this service turns it back into text (stored, carried in a form) with JSON.stringify, which overflows the stack at a
// few thousand levels: a 500 for 12 kB of brackets. Nothing it keeps nests more than a few levels (a JWK Set three, an
// authorization_details object a handful), so deeper is refused as the input's fault.

export const MAX_JSON_NESTING = 32;

/** Whether `value` holds objects or arrays more than MAX_JSON_NESTING levels deep; looks no deeper than that. */
export function nestedTooDeeply(value: unknown, level = 1): boolean {
  if (typeof value !== 'object' || value === null) return false;
  if (level > MAX_JSON_NESTING) return true;
  return Object.values(value).some((item) => nestedTooDeeply(item, level + 1));
}

/** The sentence of a refusal, after what is nested ("authorization_details is"). */
export const NESTED_TOO_DEEPLY = `nested too deeply (at most ${MAX_JSON_NESTING} levels of objects and arrays)`;

/**
 * JSON text of `value` with what lies below MAX_JSON_NESTING + 1 levels emptied, for a JSON body's member that the
 * domain checks as text (a JWK Set, a declaration): a value nested deeper stays deeper than the limit, so the check
 * refuses it by name, where JSON.stringify of the whole would overflow the stack. Within the limit, the text is exact.
 */
export function boundedJson(value: unknown): string {
  return JSON.stringify(cut(value, 1));
}

function cut(value: unknown, level: number): unknown {
  if (typeof value !== 'object' || value === null) return value;
  if (level > MAX_JSON_NESTING + 1) return Array.isArray(value) ? [] : {};
  if (Array.isArray(value)) return value.map((item) => cut(item, level + 1));
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, cut(item, level + 1)]));
}

/** How much of a value someone sent a refusal's message repeats. */
const SHOWN_LENGTH = 100;

/** A value someone sent, as JSON text for a refusal's message: bounded in depth (boundedJson) and cut short. */
export function shownJson(value: unknown): string {
  // undefined, a function or a symbol have no JSON text: their type is shown instead.
  const text = (JSON.stringify(cut(value, 1)) as string | undefined) ?? typeof value;
  return text.length > SHOWN_LENGTH ? `${text.slice(0, SHOWN_LENGTH)}...` : text;
}
