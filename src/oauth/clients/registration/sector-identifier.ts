import type { OAuthDeps } from '../../deps.js';
import { ClientMetadataDocumentRefused, fetchJsonArray } from '../metadata-documents/client-metadata-document-fetch.js';
import { subjectTypeError } from '../subject-type-setting.js';
import type { SubjectType } from '../application-store.js';
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
  if (sectorIdentifierUri === null) return;
  const listed = await sectorRedirectUris(deps, sectorIdentifierUri);
  const missing = metadata.redirect_uris.find((uri) => !listed.includes(uri));
  if (missing !== undefined)
    throw new InvalidClientMetadata(
      `The sector_identifier_uri document does not list the redirect URI ${missing} (OpenID Connect Core 8.1: it must list every one).`,
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
