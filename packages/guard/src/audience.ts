import type { GuardToken } from './types.js';

/** Whose tokens this API accepts, by audience (RFC 8707; RFC 9068 section 4). */
export interface AudienceRule {
  /** The API's resource identifier, compared exactly (RFC 9728 section 3.3 asks for identical strings). */
  resource: string;
  /** Whether a token that names no audience is accepted. */
  acceptTokensWithoutAudience: boolean;
  /**
   * Audiences that mean "none": in jwt mode the issuer, which this service writes into `aud` when a token was
   * issued for no particular resource (RFC 9068 section 2.2 makes `aud` required).
   */
  noAudience?: readonly string[];
}

/** 'audience' when the token is not meant for this resource; null when it is (or may be, having no audience). */
export function audienceProblem(token: GuardToken, rule: AudienceRule): 'audience' | null {
  const audience = token.audience ?? [];
  if (audience.includes(rule.resource)) return null;
  const named = audience.filter((value) => !(rule.noAudience ?? []).includes(value));
  return named.length === 0 && rule.acceptTokensWithoutAudience ? null : 'audience';
}

/** RFC 7662 section 2.2 / RFC 7519 section 4.1.3: `aud` is one string or an array of strings. */
export function audienceOf(aud: unknown): readonly string[] {
  if (typeof aud === 'string') return Object.freeze([aud]);
  if (Array.isArray(aud)) return Object.freeze(aud.filter((value): value is string => typeof value === 'string'));
  return Object.freeze([]);
}
