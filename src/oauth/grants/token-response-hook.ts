import type { OAuthDeps } from '../deps.js';
import type { TokenResponseBody, TokenResponseContext } from '../hooks.js';

// The beforeTokenResponse extension hook runs once the token is stored: the code is used up, the refresh token rotated.
// A hook that fails then (throws, or answers what cannot be sent: a string, an array, an expires_in of "soon", a cycle)
// made the client's answer a 500, and the grant it had just used was gone with the token it never saw (an extensions
// audit). The answer is the body as the grant made it instead, and the failure is reported (the service logs it).

/**
 * The standard members a hook may change, and their JSON types: those the token response's schema writes (http/schemas.ts
 * tokenResponse; a unit test holds the two together), but access_token and token_type, which a hook cannot change.
 */
export const HOOKED_MEMBER_TYPES: Readonly<Record<string, 'integer' | 'string'>> = {
  expires_in: 'integer',
  refresh_token: 'string',
  scope: 'string',
  created_at: 'integer',
  id_token: 'string',
  issued_token_type: 'string',
};

/** The body the client gets: the hook's, when it has one that can be sent; else the grant's own. */
export async function hookedTokenResponse(
  deps: Pick<OAuthDeps, 'hooks' | 'extensionFailed'>,
  body: TokenResponseBody,
  context: TokenResponseContext,
): Promise<TokenResponseBody> {
  const hook = deps.hooks.beforeTokenResponse;
  if (!hook) return body;
  // A copy, so that a hook failing half-way through changing it in place leaves the grant's body whole.
  const given = { ...body };
  let answer: unknown;
  try {
    answer = (await hook(given, context)) ?? given;
  } catch (error) {
    return keptAfter(deps, body, error);
  }
  const problem = unsendable(answer);
  if (problem !== null) return keptAfter(deps, body, new Error(`the beforeTokenResponse hook returned ${problem}`));
  return { ...(answer as TokenResponseBody), access_token: body.access_token, token_type: body.token_type };
}

function keptAfter(deps: Pick<OAuthDeps, 'extensionFailed'>, body: TokenResponseBody, error: unknown): TokenResponseBody {
  // Without a reporter (the domain used on its own) the failure is the caller's, as before.
  if (!deps.extensionFailed) throw error;
  deps.extensionFailed('beforeTokenResponse', error);
  return body;
}

function unsendable(answer: unknown): string | null {
  if (typeof answer !== 'object' || answer === null || Array.isArray(answer))
    return `${Array.isArray(answer) ? 'an array' : typeof answer}, not an object`;
  const members = answer as Record<string, unknown>;
  // A member set to undefined is left out of the JSON, as one deleted.
  for (const [name, type] of Object.entries(HOOKED_MEMBER_TYPES)) {
    const value = members[name];
    if (value === undefined) continue;
    if (type === 'integer' && !Number.isSafeInteger(value)) return `${name}: ${String(value).slice(0, 40)}, not a whole number`;
    if (type === 'string' && typeof value !== 'string') return `${name} that is not a string`;
  }
  try {
    JSON.stringify(members);
  } catch (error) {
    return `a body that cannot be written as JSON (${(error as Error).message})`;
  }
  return null;
}
