import type { AcrValues, AuthenticationLevel } from '../../config/authentication-schema.js';
import { levelOfAmr } from '../authentication-context.js';

// What a sign-in through an upstream identity provider is called in our tokens (issue 37 item 4). amr: "fed" (RFC 8176
// section 2: federated authentication), the upstream's own amr values, and those of our second step if one ran. The
// acr is ours, never the upstream's acr copied: the upstream's acr values mean what its operator says, not what ours do.
// A federated sign-in reaches pwd (one factor, as far as we can know), mfa when the upstream's amr shows two factors
// (mfa, otp with pwd, hwk...) or our own second step ran; phishing-resistant (phr) only through our own passkey, since
// the upstream's hwk proves nothing about the origin the user is at here.

// RFC 8176 section 2 values are short lowercase tokens; anything else the upstream sends is dropped, not copied.
const AMR_VALUE = /^[a-z0-9_-]{1,32}$/;
const MAX_UPSTREAM_AMR = 10;

/** The amr of the sign-in: fed, the upstream's values, then our second step's (without the pwd it was not). */
export function federatedAmr(upstreamAmr: readonly string[], secondStepAmr: readonly string[]): string[] {
  const upstream = upstreamAmr.filter((value) => AMR_VALUE.test(value)).slice(0, MAX_UPSTREAM_AMR);
  return [...new Set(['fed', ...upstream, ...secondStepAmr.filter((value) => value !== 'pwd')])];
}

/** The level the sign-in reaches (see the comment above). */
export function federatedLevel(upstreamAmr: readonly string[], secondStepAmr: readonly string[]): AuthenticationLevel {
  const ours = secondStepAmr.filter((value) => value !== 'pwd');
  // The upstream sign-in counts as the first factor, like a password here.
  if (ours.length > 0) return levelOfAmr(['pwd', ...ours]) ?? 'mfa';
  return upstreamShowsTwoFactors(upstreamAmr) ? 'mfa' : 'pwd';
}

export const federatedAcr = (upstreamAmr: readonly string[], secondStepAmr: readonly string[], acrValues: Readonly<AcrValues>): string =>
  acrValues[federatedLevel(upstreamAmr, secondStepAmr)];

/**
 * Whether the upstream sign-in stands in for our second step (authentication.requireSecondFactor, a user's mfa
 * setting): its amr shows two factors or a hardware key. Otherwise our second step runs as after a password.
 */
export function upstreamShowsTwoFactors(upstreamAmr: readonly string[]): boolean {
  const level = levelOfAmr(upstreamAmr);
  return level === 'mfa' || level === 'phr';
}
