import type { OAuthDeps } from '../../deps.js';
import { ClientMetadataDocumentRefused, fetchJsonArray } from '../metadata-documents/client-metadata-document-fetch.js';
import { subjectTypeError } from '../subject-type-setting.js';
import type { ApplicationRecord, SubjectType } from '../application-store.js';
import { sectorOf } from '../../openid/subject.js';
import { DEVICE_CODE_GRANT } from '../../device/device-code-grant-type.js';
import { InvalidClientMetadata } from './client-registration-errors.js';

// OpenID Connect Registration 1.0 section 2 and Core 1.0 section 8.1: a self-registered client's subject_type and
// sector_identifier_uri. The URI names a JSON array of redirect URIs that MUST contain every redirect_uri the client
// registers; its host is the client's sector, whose clients share their users' pairwise subs. Fetched once per
// registration or update, with the Client ID Metadata Document fetcher and its SSRF rules (no internal addresses,
// no redirects, bounded time and size: registration.clientIdMetadataDocuments' timeoutMs, maxBytes and, in
// development only, allowPrivateAddresses), so a stranger cannot make this server reach its own network.

const MAX_URI_LENGTH = 2000;

/** The sector_identifier_uri of the metadata, as far as it can be checked without fetching it. */
export function sectorIdentifierUriOf(value: unknown): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string') throw new InvalidClientMetadata('sector_identifier_uri must be a string.');
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new InvalidClientMetadata('sector_identifier_uri must be an absolute https URL.');
  }
  // Registration 1.0 section 2: "URL using the https scheme".
  if (url.protocol !== 'https:') throw new InvalidClientMetadata('sector_identifier_uri must use the https scheme.');
  if (value.length > MAX_URI_LENGTH)
    throw new InvalidClientMetadata(`sector_identifier_uri is too long (maximum is ${MAX_URI_LENGTH} characters).`);
  if (url.username !== '' || url.password !== '' || url.hash !== '')
    throw new InvalidClientMetadata('sector_identifier_uri must not hold credentials or a fragment.');
  return value;
}

export interface SubjectMetadata {
  subject_type: SubjectType;
  sector_identifier_uri?: string;
  redirect_uris: string[];
  grant_types?: string[];
}

/**
 * Core 8.1: a sector_identifier_uri is fetched and must list every redirect URI; a pairwise client must have a sector
 * (that URI's host, or its redirect URIs' one host) and the server a salt. Throws invalid_client_metadata.
 */
export async function checkSubjectMetadata(deps: OAuthDeps, metadata: SubjectMetadata): Promise<void> {
  const sectorIdentifierUri = metadata.sector_identifier_uri ?? null;
  const client = { redirectUris: metadata.redirect_uris, sectorIdentifierUri };
  const problem = subjectTypeError(metadata.subject_type, client, deps.config, 'subject_type');
  if (problem !== null) throw new InvalidClientMetadata(problem);
  // The sector is the redirect URIs' host because codes go there, which only that host's owner receives; the device
  // grant sends nothing there, so a stranger could name any site's redirect URI and be told its users' subs.
  if (metadata.subject_type === 'pairwise' && metadata.grant_types?.includes(DEVICE_CODE_GRANT))
    throw new InvalidClientMetadata(
      'A pairwise client cannot register the device grant: its redirect URIs, which name its sector, are never used by that grant, so they would prove nothing (OpenID Connect Core 8.1).',
    );
  if (sectorIdentifierUri === null) return;
  const listed = await sectorRedirectUris(deps, sectorIdentifierUri);
  const missing = metadata.redirect_uris.find((uri) => !listed.includes(uri));
  if (missing !== undefined)
    throw new InvalidClientMetadata(
      `The sector_identifier_uri document does not list the redirect URI ${missing} (OpenID Connect Core 8.1: it must list every one).`,
    );
}

/**
 * OpenID Connect Core 2 and 8: the sub a client is told for a user never changes. An update may change neither the
 * client's subject_type nor a pairwise client's sector: with tokens it already holds, it would be told another
 * sector's subs (or the user's own subject), one after the other.
 */
export function checkSubjectUnchanged(current: ApplicationRecord, metadata: SubjectMetadata): void {
  if (metadata.subject_type !== current.subjectType)
    throw new InvalidClientMetadata(
      `subject_type cannot change from ${current.subjectType}: the sub a client is told for a user never changes (OpenID Connect Core 8); register a new client.`,
    );
  if (current.subjectType !== 'pairwise') return;
  const sector = sectorOf(current);
  if (sectorOf({ redirectUris: metadata.redirect_uris, sectorIdentifierUri: metadata.sector_identifier_uri ?? null }) !== sector)
    throw new InvalidClientMetadata(
      `A pairwise client's sector cannot change: its redirect URIs must stay on ${sector} (or its sector_identifier_uri there); register a new client for another.`,
    );
}

async function sectorRedirectUris(deps: OAuthDeps, uri: string): Promise<unknown[]> {
  const { allowPrivateAddresses, maxBytes, timeoutMs } = deps.config.registration.clientIdMetadataDocuments;
  try {
    return await fetchJsonArray(new URL(uri), { allowPrivateAddresses, maxBytes, timeoutMs, ca: deps.documentCa });
  } catch (error) {
    if (!(error instanceof ClientMetadataDocumentRefused)) throw error;
    throw new InvalidClientMetadata(`The sector_identifier_uri could not be used: ${error.shown}.`);
  }
}
