import type { Config } from '../../config/types.js';
import { isLoopbackHost } from '../authorization/redirect-uri.js';
import { pairwiseAvailable, sectorOf, type SubjectClient } from '../openid/subject.js';
import type { SubjectType } from './application-store.js';

// An application's subject_type (OpenID Connect Core 1.0 section 8, Registration 1.0 section 2) as the admin form, the
// JSON API, the CLI and RFC 7591 registration spell it: public (the default) or pairwise. The sub itself is
// openid/subject.ts's; this says when a client may be pairwise.

/** The stored type of a value given (validated first): blank is the default, public. */
export const subjectTypeOf = (value: string): SubjectType => (value.trim() === 'pairwise' ? 'pairwise' : 'public');

type Sector = Pick<SubjectClient, 'redirectUris' | 'sectorIdentifierUri'>;

/**
 * Why `value` cannot be the subject type of a client with these redirect URIs and sector_identifier_uri (as they
 * will be stored), in `label`'s words; null when it can. Blank means public.
 */
export function subjectTypeError(
  value: string,
  client: Sector,
  config: { openid: Pick<Config['openid'], 'enabled' | 'pairwiseSalt'> },
  label = 'Subject type',
): string | null {
  const trimmed = value.trim();
  if (trimmed === '' || trimmed === 'public') return null;
  if (trimmed !== 'pairwise') return `${label} must be public or pairwise, not ${JSON.stringify(trimmed.slice(0, 40))}.`;
  if (!pairwiseAvailable(config))
    return 'Pairwise subject identifiers need OpenID Connect (openid.enabled) and a salt (openid.pairwiseSalt, env PAIRWISE_SALT).';
  // Core 8.1: without a sector_identifier_uri, the sector is the redirect URIs' host, so they must name one.
  const sector = sectorOf(client);
  if (sector === null)
    return client.sectorIdentifierUri === null
      ? 'A pairwise application needs its redirect URIs on one host (its sector, OpenID Connect Core 8.1), or a sector_identifier_uri.'
      : 'The sector_identifier_uri has no host.';
  // Core 8.1: a loopback host (a native app's, RFC 8252 section 7.3) is every native app's, so as a sector it would
  // give them all the same pairwise sub; such an app names its own sector with a sector_identifier_uri.
  if (client.sectorIdentifierUri === null && isLoopbackSector(sector))
    return `A pairwise application whose redirect URIs are on the loopback host ${sector} needs a sector_identifier_uri: every native app shares that host, and a sector (OpenID Connect Core 8.1, Registration 2) must be the application's own.`;
  return null;
}

const isLoopbackSector = (host: string): boolean => host === 'localhost' || host.endsWith('.localhost') || isLoopbackHost(host);
