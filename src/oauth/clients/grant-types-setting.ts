import type { OAuthDeps } from '../deps.js';

// An admin-made application's grant types (issue 34), as the CLI (--grant-types) spells them: space-separated grant
// type names (RFC 7591 section 2's values), or blank for every grant the server enables, which was the only choice
// before. The device grant is never among those: a client uses it only when its grant types name it.

const words = (value: string) => value.split(/\s+/).filter(Boolean);

/** The stored list: null for blank (every enabled grant), else the names, each once. */
export const storedGrantTypes = (value: string): string[] | null => (words(value).length === 0 ? null : [...new Set(words(value))]);

/** Why the value is not a list of grant types this server enables (naming the first refused), or null. */
export function grantTypesError(value: string, config: OAuthDeps['config']): string | null {
  const enabled = config.grantFlows as readonly string[];
  const refused = words(value).find((grant) => !enabled.includes(grant));
  if (refused === undefined) return null;
  return `Grant types must be ones this server enables (${enabled.join(', ')}), not ${JSON.stringify(refused.slice(0, 80))}.`;
}

/** Whether a stored list is the current one (undefined: there is no current one, on create). */
export function sameGrantTypes(stored: readonly string[] | null, current: readonly string[] | null | undefined): boolean {
  if (current === undefined) return false;
  if (stored === null || current === null) return stored === current;
  return stored.length === current.length && stored.every((grant) => current.includes(grant));
}
