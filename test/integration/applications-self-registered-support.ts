import type { OAuthDeps } from '../../src/oauth/deps.js';
import type { ApplicationInput, ApplicationRecord } from '../../src/oauth/store.js';

// Rows of clients nobody vetted (issue 19), made the way /oauth/register and the Client ID Metadata Document
// resolver store them, for the admin and consent tests.

export const METADATA_DOCUMENT_URI = 'https://client.example/meta.json';

export function createSelfRegistered(
  deps: OAuthDeps,
  overrides: Partial<ApplicationInput> & { uid?: string } = {},
): Promise<ApplicationRecord> {
  return deps.stores.applicationAdmin.create({
    uid: `dyn-${Math.random().toString(36).slice(2)}`,
    name: 'Self-registered App',
    secret: null,
    redirectUris: ['https://client.example.com/callback'],
    scopes: [],
    confidential: false,
    registeredBy: 'dynamic',
    tokenEndpointAuthMethod: 'none',
    grantTypes: ['authorization_code', 'refresh_token'],
    ...overrides,
  });
}

export function createFromMetadataDocument(
  deps: OAuthDeps,
  overrides: Partial<ApplicationInput> & { uid?: string } = {},
): Promise<ApplicationRecord> {
  return createSelfRegistered(deps, {
    uid: METADATA_DOCUMENT_URI,
    registeredBy: 'metadata_document',
    name: 'client.example',
    ...overrides,
  });
}
