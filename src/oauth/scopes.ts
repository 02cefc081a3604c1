// Scope lists (RFC 6749 section 3.3): space-delimited, order does not matter, duplicates carry no meaning.
// Internally a scope list is an array in first-seen order; it is joined with single spaces for storage and
// responses (reference 8.1).

// ASCII whitespace (tab, LF, VT, FF, CR, space): how Doorkeeper splits stored and requested scope strings.
const ASCII_WHITESPACE = /[\t\n\v\f\r ]+/;

export function parseScopes(value: string | null | undefined): string[] {
  if (typeof value !== 'string') return [];
  const seen = new Set<string>();
  for (const scope of value.split(ASCII_WHITESPACE)) {
    if (scope !== '') seen.add(scope);
  }
  return [...seen];
}

export function formatScopes(list: readonly string[]): string {
  return list.join(' ');
}

// RFC 6749 section 3.3: scope-token = 1*( %x21 / %x23-5B / %x5D-7E ), separated by SP. Leading, trailing and
// repeated spaces are tolerated (Doorkeeper trims and splits them away), but a tab, CR or LF is invalid_scope
// (reference 8.2), as is any character outside the scope-token set, including non-ASCII.
const SCOPE_PARAM = /^[\x20\x21\x23-\x5B\x5D-\x7E]*$/;

export function isWellFormedScopeParam(value: string | null | undefined): boolean {
  if (typeof value !== 'string') return false;
  if (value.trim() === '') return false;
  return SCOPE_PARAM.test(value);
}

export function allScopesAllowed(requested: readonly string[], allowed: readonly string[]): boolean {
  const permitted = new Set(allowed);
  return requested.every((scope) => permitted.has(scope));
}

// Scopes used when the request names none (reference 4.2 and 8.3): an application without scopes gets the
// server defaults; an application with scopes gets only the defaults it also lists, in the defaults' order.
// The result may be empty; whether that is invalid_scope is the caller's (grant's) decision.
export function effectiveDefaultScopes(defaultScopes: readonly string[], applicationScopes: readonly string[]): string[] {
  if (applicationScopes.length === 0) return [...defaultScopes];
  const permitted = new Set(applicationScopes);
  return defaultScopes.filter((scope) => permitted.has(scope));
}

// Order-insensitive, duplicate-insensitive equality (reference 17.5: consent skip and token reuse).
export function sameScopeSet(a: readonly string[], b: readonly string[]): boolean {
  const left = new Set(a);
  const right = new Set(b);
  if (left.size !== right.size) return false;
  for (const scope of left) {
    if (!right.has(scope)) return false;
  }
  return true;
}

// RFC 6749 section 6: a refreshed token's scope MUST NOT include any scope not originally granted. Returns the
// requested list when it is a subset of the original, otherwise null (invalid_scope). Whether an omitted scope
// means "the original scopes" is decided by the caller before calling this.
export function narrowScopes(requested: readonly string[], original: readonly string[]): string[] | null {
  return allScopesAllowed(requested, original) ? [...requested] : null;
}
