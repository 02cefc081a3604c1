import { isScopedClaim, scopeClaimNames, type ScopedClaim } from './standard-claims.js';

// The claims request parameter of OpenID Connect Core 1.0 section 5.5: a JSON object whose userinfo and id_token
// members ask for individual claims, each null (voluntary) or an object with essential, value and values (5.5.1).
// Members and claims this server does not understand are ignored, as section 5.5 requires; only the claims it can
// return are kept, so what is stored with a code and its tokens (to be honoured at UserInfo and on refresh) is bounded.

export type ClaimsMember = 'userinfo' | 'id_token';
const MEMBERS: readonly ClaimsMember[] = ['userinfo', 'id_token'];

/** One requested claim: essential (5.5.1: it does not make a missing claim an error), and the values asked for, if any. */
export interface RequestedClaim {
  essential: boolean;
  /** value as a one-element list, or values; null when neither was sent. */
  values: unknown[] | null;
}

export type RequestedClaims = Record<string, RequestedClaim>;
export type ClaimsRequest = Record<ClaimsMember, RequestedClaims>;

// Beyond the standard claims: the sub (5.5.1) in both members, and in the ID token its own auth_time and acr
// (5.5.1.1), which every ID token of a sign-in carries; acr values asked for are what the sign-in must reach.
const UNDERSTOOD: Record<ClaimsMember, (name: string) => boolean> = {
  userinfo: (name) => name === 'sub' || isScopedClaim(name),
  id_token: (name) => ['sub', 'auth_time', 'acr'].includes(name) || isScopedClaim(name),
};

/**
 * The longest claims parameter read: every understood claim with values fits many times over. It bounds the parameter
 * as the client sent it, never the stored form, which can be longer (value becomes values, empty members are added).
 */
export const MAX_CLAIMS_PARAMETER_LENGTH = 4096;

export class ClaimsRequestInvalid extends Error {}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Section 5.5: the parameter's JSON, with only the claims this server understands; throws ClaimsRequestInvalid. */
export function parseClaimsRequest(text: string): ClaimsRequest {
  if (text.length > MAX_CLAIMS_PARAMETER_LENGTH)
    throw new ClaimsRequestInvalid(`The claims parameter is too long (at most ${MAX_CLAIMS_PARAMETER_LENGTH} characters).`);
  return claimsRequestOf(text);
}

function claimsRequestOf(text: string): ClaimsRequest {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new ClaimsRequestInvalid('The claims parameter must be a JSON object (OpenID Connect Core 5.5); it is not valid JSON.');
  }
  if (!isObject(parsed)) throw new ClaimsRequestInvalid('The claims parameter must be a JSON object (OpenID Connect Core 5.5).');
  return { userinfo: memberOf(parsed, 'userinfo'), id_token: memberOf(parsed, 'id_token') };
}

function memberOf(request: Record<string, unknown>, member: ClaimsMember): RequestedClaims {
  const claims: RequestedClaims = {};
  if (!Object.hasOwn(request, member) || request[member] === null) return claims;
  const requested = request[member];
  if (!isObject(requested)) throw new ClaimsRequestInvalid(`The claims parameter's ${member} member must be a JSON object.`);
  for (const [name, asked] of Object.entries(requested)) {
    const claim = requestedClaim(asked, `The claims parameter's request for ${member} ${JSON.stringify(name.slice(0, 40))}`);
    // Section 5.5.1: a sub is asked for by its value, a string (anything else could never match a user).
    if (name === 'sub' && !(claim.values ?? []).every((value) => typeof value === 'string'))
      throw new ClaimsRequestInvalid(`The claims parameter's request for ${member} "sub": its value must be a string.`);
    if (UNDERSTOOD[member](name)) claims[name] = claim;
  }
  return claims;
}

function requestedClaim(request: unknown, what: string): RequestedClaim {
  if (request === null) return { essential: false, values: null };
  if (!isObject(request)) throw new ClaimsRequestInvalid(`${what} must be null or a JSON object.`);
  const { essential = false, value, values } = request;
  if (typeof essential !== 'boolean') throw new ClaimsRequestInvalid(`${what}: essential must be true or false.`);
  if (values !== undefined && !Array.isArray(values)) throw new ClaimsRequestInvalid(`${what}: values must be a JSON array.`);
  const asked = [...(value === undefined ? [] : [value]), ...((values as unknown[] | undefined) ?? [])];
  return { essential, values: value === undefined && values === undefined ? null : asked };
}

/** The request as it is stored with a code and its tokens (the same JSON shape, normalised). */
export function claimsRequestJson(request: ClaimsRequest): string {
  const stored = ({ essential, values }: RequestedClaim) =>
    essential || values !== null ? { ...(essential && { essential }), ...(values !== null && { values }) } : null;
  const member = (claims: RequestedClaims) => Object.fromEntries(Object.entries(claims).map(([name, claim]) => [name, stored(claim)]));
  return JSON.stringify({ userinfo: member(request.userinfo), id_token: member(request.id_token) });
}

/** A stored request read back; text that is no longer one (a hand-edited row) asks for nothing rather than failing. */
export function storedClaimsRequest(text: string | null): ClaimsRequest | null {
  if (text === null) return null;
  try {
    return claimsRequestOf(text);
  } catch {
    return null;
  }
}

/**
 * Core 5.4 and 5.5: a standard claim asked for by name only when the client holds the scope that carries it (`held`,
 * what its scope parameter could ask for); the others are dropped, since section 5.5 lets the OP decline to return a
 * claim and 5.5.1 makes an essential claim not returned no error. sub, auth_time and acr belong to no scope and stay.
 */
export function claimsWithinScopes(request: ClaimsRequest | null, held: readonly string[]): ClaimsRequest | null {
  if (request === null) return null;
  const carried = new Set<string>(scopeClaimNames(held));
  const within = (claims: RequestedClaims): RequestedClaims =>
    Object.fromEntries(Object.entries(claims).filter(([name]) => !isScopedClaim(name) || carried.has(name)));
  return { userinfo: within(request.userinfo), id_token: within(request.id_token) };
}

/** The standard claims a member asks for by name. */
export function requestedUserClaims(request: ClaimsRequest | null, member: ClaimsMember): ScopedClaim[] {
  return request === null ? [] : Object.keys(request[member]).filter(isScopedClaim);
}

/** The standard claims asked for by name that the granted scopes do not already release: what consent must name. */
export function claimsBeyondScopes(request: ClaimsRequest | null, scopes: readonly string[]): ScopedClaim[] {
  const covered = new Set<string>(scopeClaimNames(scopes));
  const named = new Set(MEMBERS.flatMap((member) => requestedUserClaims(request, member)));
  return [...named].filter((claim) => !covered.has(claim));
}

/**
 * Whether consent given before to `previous` (a live token's request, of the same scopes) covers this request's claims:
 * each claim this one asks for beyond its scopes was named on the consent screen then.
 */
export function claimsConsentedBefore(previous: ClaimsRequest | null, request: ClaimsRequest | null, scopes: readonly string[]): boolean {
  const consented = new Set<string>(claimsBeyondScopes(previous, scopes));
  return claimsBeyondScopes(request, scopes).every((claim) => consented.has(claim));
}

/**
 * Section 5.5.1: "If the sub (subject) Claim is requested with a specific value for the ID Token, the OP MUST only send
 * a positive response if the End-User identified by that sub value has an active session". Whether `subject` (the sub
 * the client sees for the signed-in user) is the one asked for; true when none is.
 */
export function subjectRequested(request: ClaimsRequest | null, subject: string): boolean {
  const values = request?.id_token.sub?.values ?? null;
  return values === null || values.length === 0 || values.includes(subject);
}

/** Section 5.5.1.1: the acr values the ID token's acr claim asks for, in order of preference (strings only); [] for none. */
export function requestedAcrValues(request: ClaimsRequest | null): string[] {
  const values = request?.id_token.acr?.values ?? [];
  return values.filter((value): value is string => typeof value === 'string');
}

/** Section 5.5.1.1: acr asked for as an essential claim with values, which the sign-in must then meet. */
export function requiresAcr(request: ClaimsRequest | null): boolean {
  const acr = request?.id_token.acr;
  return acr !== undefined && acr.essential && acr.values !== null && acr.values.length > 0;
}
