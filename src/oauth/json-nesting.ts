// Text of JSON that others send, bounded in depth: the limit itself is src/config/json-nesting-limit.ts (the config
// loader refuses a file by the same rule).
import { MAX_JSON_NESTING } from '../config/json-nesting-limit.js';

export { MAX_JSON_NESTING, NESTED_TOO_DEEPLY, nestedTooDeeply } from '../config/json-nesting-limit.js';

/**
 * JSON text of the object `value` with what lies below MAX_JSON_NESTING + 1 levels emptied, for a JSON body's member
 * that the domain checks as text (a JWK Set, a declaration): a value nested deeper stays deeper than the limit, so the
 * check refuses it by name, where JSON.stringify of the whole would overflow the stack. Within the limit, the text is
 * exact.
 */
export function boundedJson(value: object): string {
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

/** A value someone sent, as JSON text for a refusal's message: bounded in depth as boundedJson's and cut short. */
export function shownJson(value: unknown): string {
  // undefined, a function or a symbol have no JSON text: their type is shown instead.
  const text = (JSON.stringify(cut(value, 1)) as string | undefined) ?? typeof value;
  return text.length > SHOWN_LENGTH ? `${text.slice(0, SHOWN_LENGTH)}...` : text;
}
