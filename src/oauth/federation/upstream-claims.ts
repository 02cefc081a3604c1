import { DEFAULT_CLAIM_MAPPING, type IdentityProviderConfig } from '../../config/identity-providers-schema.js';
import { UpstreamFailure } from './upstream-failure.js';

// What an upstream says about its user, in our claim names (config identityProviders[].claims maps them), and whether
// the provider lets that user in here (allowedDomains).

/** The upstream's claims in our names: sub always, the others when it gave them. */
export interface MappedClaims {
  sub: string;
  username?: string;
  email?: string;
  email_verified?: boolean;
  [claim: string]: unknown;
}

/**
 * The ID token's claims over UserInfo's (signed, against TLS only), except that email_verified speaks of the email
 * beside it (OpenID Connect Core 5.1): the pair comes from one source, the ID token's if it has the email, else
 * UserInfo's; never an address from one with the other's word that an address was verified.
 */
export function mergedUpstreamClaims(
  entry: IdentityProviderConfig,
  userinfo: Record<string, unknown>,
  idToken: Record<string, unknown> | undefined,
): Record<string, unknown> {
  const merged: Record<string, unknown> = { ...userinfo, ...idToken };
  const mapping = { ...DEFAULT_CLAIM_MAPPING, ...entry.claims };
  const email = mapping.email ?? 'email';
  const verified = mapping.email_verified ?? 'email_verified';
  const source = idToken?.[email] !== undefined ? idToken : userinfo;
  if (source[verified] === undefined) delete merged[verified];
  else merged[verified] = source[verified];
  return merged;
}

/** Maps the upstream's claims (ID token and UserInfo) to ours; an identity without a subject is refused. */
export function mappedClaims(entry: IdentityProviderConfig, upstream: Record<string, unknown>): MappedClaims {
  const mapping = { ...DEFAULT_CLAIM_MAPPING, ...entry.claims };
  const mapped: Record<string, unknown> = {};
  for (const [ours, theirs] of Object.entries(mapping)) {
    const value = upstream[theirs];
    if (value === undefined || value === null || value === '') continue;
    // GitHub's id is a number; a subject is a string everywhere here.
    mapped[ours] = ours === 'sub' && typeof value === 'number' ? String(value) : value;
  }
  if (typeof mapped.sub !== 'string') throw new UpstreamFailure('claims_missing', `no string ${mapping.sub} claim to use as the subject`);
  if (typeof mapped.email !== 'string') delete mapped.email;
  // OpenID Connect Core 5.1: email_verified is a boolean; some providers send "true".
  if (mapped.email_verified === 'true') mapped.email_verified = true;
  if (mapped.email_verified !== true) mapped.email_verified = false;
  return mapped as MappedClaims;
}

/** The verified email, or null: an address the upstream does not vouch for is anybody's claim. */
export const verifiedEmail = (claims: MappedClaims): string | null =>
  typeof claims.email === 'string' && claims.email_verified === true ? claims.email : null;

/** Refuses a user outside the provider's allowedDomains (their verified email's domain, exactly, in any case). */
export function checkAllowedDomain(entry: IdentityProviderConfig, claims: MappedClaims): void {
  if (entry.allowedDomains === null) return;
  // Text with two @ is no address and has no one domain to judge (a@evil.example@corp.example): as no verified email.
  const verified = verifiedEmail(claims);
  const email = verified !== null && verified.indexOf('@') === verified.lastIndexOf('@') ? verified : null;
  const domain = email?.slice(email.lastIndexOf('@') + 1).toLowerCase();
  const allowed = entry.allowedDomains.map((item) => item.toLowerCase());
  if (domain === undefined || !allowed.includes(domain))
    throw new UpstreamFailure('domain_not_allowed', email === null ? 'no verified email' : `email domain ${domain} is not allowed`);
}
