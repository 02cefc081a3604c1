import type { AcrValues, AuthenticationLevel } from '../config/authentication-schema.js';

// What a sign-in was, as tokens describe it (RFC 8176 amr, OpenID Connect Core 2 acr and auth_time), and whether it is
// enough for a request (acr_values, an essential acr claim, max_age). The one place that ranks sign-ins: a new way in
// (a second factor, a passkey) adds its amr values to FACTORS and its level to REACHABLE_LEVELS, nothing else.

/** A sign-in as carried from the login session through codes and tokens to ID tokens, JWT access tokens and introspection. */
export interface AuthenticationContext {
  /** When the user signed in; null for a session or row from before it was recorded. */
  authTime: Date | null;
  /** RFC 8176 values; empty when unknown. */
  amr: readonly string[];
  /** The acr the sign-in reached (one of config authentication.acr); null when unknown. */
  acr: string | null;
}

export const NO_AUTHENTICATION: AuthenticationContext = { authTime: null, amr: [], acr: null };

/** Weakest first. */
const LEVELS: readonly AuthenticationLevel[] = ['pwd', 'mfa', 'phr'];

/** The levels a sign-in here can be brought to: a password; with a TOTP code, mfa; a passkey, phishing-resistant. */
export const REACHABLE_LEVELS: readonly AuthenticationLevel[] = ['pwd', 'mfa', 'phr'];

// RFC 8176 section 2: the factor each method belongs to (NIST SP 800-63: something you know, have, are).
const FACTORS: Readonly<Record<string, 'knowledge' | 'possession' | 'inherence'>> = {
  pwd: 'knowledge',
  pin: 'knowledge',
  kba: 'knowledge',
  otp: 'possession',
  sms: 'possession',
  tel: 'possession',
  hwk: 'possession',
  swk: 'possession',
  sc: 'possession',
  fpt: 'inherence',
  face: 'inherence',
  iris: 'inherence',
  retina: 'inherence',
  vbm: 'inherence',
};

/** The level of a sign-in made with these RFC 8176 methods, or null when none that this server ranks. */
export function levelOfAmr(amr: readonly string[]): AuthenticationLevel | null {
  // A passkey (proof of possession of a key bound to this origin) cannot be phished, alone or with more.
  if (amr.includes('hwk') || amr.includes('swk')) return 'phr';
  const factors = new Set(amr.map((method) => FACTORS[method]).filter((factor) => factor !== undefined));
  if (amr.includes('mfa') || factors.size >= 2) return 'mfa';
  return amr.includes('pwd') ? 'pwd' : null;
}

/** The acr issued for a sign-in made with these methods (config authentication.acr), or null. */
export function acrForAmr(amr: readonly string[], acrValues: Readonly<AcrValues>): string | null {
  const level = levelOfAmr(amr);
  return level === null ? null : acrValues[level];
}

/** The level an acr value of this server names, or null for a value it does not issue. */
export function levelOfAcr(acr: string | null, acrValues: Readonly<AcrValues>): AuthenticationLevel | null {
  return LEVELS.find((level) => acrValues[level] === acr) ?? null;
}

/** What a request asks of the sign-in: acr values in order of preference (acr_values or an essential acr claim), max_age. */
export interface AuthenticationRequirement {
  acrValues: readonly string[];
  /** Seconds; a sign-in older than this must be repeated. */
  maxAge: number | null;
}

/**
 * The level a request makes a sign-in reach: that of the first acr value asked for that a sign-in here can reach, or
 * null when none can (OpenID Connect Core 3.1.2.1: acr_values is voluntary; the sign-in is then what it is).
 */
export function targetLevel(
  acrValues: readonly string[],
  configured: Readonly<AcrValues>,
  reachable: readonly AuthenticationLevel[] = REACHABLE_LEVELS,
): AuthenticationLevel | null {
  for (const acr of acrValues) {
    const level = levelOfAcr(acr, configured);
    if (level !== null && reachable.includes(level)) return level;
  }
  return null;
}

/** The acr values a sign-in here can reach, weakest first. */
export const reachableAcrValues = (configured: Readonly<AcrValues>): string[] => REACHABLE_LEVELS.map((level) => configured[level]);

/** Whether a sign-in here can reach one of these acr values (an essential acr claim that cannot is an error). */
export const anyReachable = (acrValues: readonly string[], configured: Readonly<AcrValues>): boolean =>
  targetLevel(acrValues, configured) !== null;

/**
 * Whether the session's sign-in is enough for the request, or must be redone: recent enough for max_age (a sign-in of
 * unknown time is as old as can be), and at least as strong as the level the acr values asked for make it reach.
 */
export function satisfiesRequirement(
  context: AuthenticationContext,
  requirement: AuthenticationRequirement,
  configured: Readonly<AcrValues>,
  now: Date,
  reachable: readonly AuthenticationLevel[] = REACHABLE_LEVELS,
): boolean {
  if (requirement.maxAge !== null && olderThan(context.authTime, requirement.maxAge, now)) return false;
  const target = targetLevel(requirement.acrValues, configured, reachable);
  if (target === null) return true;
  const { amr, acr } = describedSignIn(context, configured);
  const reached = levelOfAcr(acr, configured) ?? levelOfAmr(amr);
  return reached !== null && LEVELS.indexOf(reached) >= LEVELS.indexOf(target);
}

/**
 * The acr a request's code and tokens carry (Core 3.1.2.1: "the Authentication Context Class satisfied by the
 * authentication performed"): the first acr value asked for, in order of preference, that the sign-in meets; else the
 * sign-in's own. A passkey sign-in asked for mfa says mfa, so an API that requires exactly mfa (RFC 9470 step-up)
 * accepts the token the client got by asking for it; unasked, it says phr.
 */
export function satisfiedAcr(context: AuthenticationContext, acrValues: readonly string[], configured: Readonly<AcrValues>): string | null {
  if (acrValues.length === 0) return context.acr;
  const { amr, acr } = describedSignIn(context, configured);
  const reached = levelOfAcr(acr, configured) ?? levelOfAmr(amr);
  if (reached === null) return context.acr;
  const met = acrValues.find((value) => {
    const level = levelOfAcr(value, configured);
    return level !== null && LEVELS.indexOf(level) <= LEVELS.indexOf(reached);
  });
  return met ?? context.acr;
}

function olderThan(authTime: Date | null, maxAgeSeconds: number, now: Date): boolean {
  return authTime === null || now.getTime() - authTime.getTime() > maxAgeSeconds * 1000;
}

/**
 * The sign-in as tokens show it. Sessions and rows from before amr was recorded were password sign-ins (the only way
 * in then), known by their auth_time; a recorded sign-in without an acr gets the one its amr reaches.
 */
export function describedSignIn(context: AuthenticationContext, configured: Readonly<AcrValues>): AuthenticationContext {
  const amr = context.amr.length === 0 && context.authTime !== null ? PASSWORD_ONLY : context.amr;
  return { authTime: context.authTime, amr, acr: context.acr ?? acrForAmr(amr, configured) };
}

const PASSWORD_ONLY: readonly string[] = ['pwd'];

/** The auth_time, acr and amr claims of a JWT access token or an introspection response; none without a sign-in. */
export function signInClaims(
  context: AuthenticationContext,
  configured: Readonly<AcrValues>,
): { auth_time?: number; acr?: string; amr?: string[] } {
  if (context.authTime === null) return {};
  const { amr, acr } = describedSignIn(context, configured);
  return {
    auth_time: Math.floor(context.authTime.getTime() / 1000),
    ...(acr !== null && { acr }),
    ...(amr.length > 0 && { amr: [...amr] }),
  };
}
