import { readFileSync } from 'node:fs';
import { extname } from 'node:path';
import { LOGO_TYPES, type IdentityProviderConfig } from '../../../config/identity-providers-schema.js';

// The logos of the identity provider buttons (config identityProviders[].logoFile), read once at boot: local files
// only (a remote logo would tell a third party who opens /login). The loader has checked their type and size.

export interface UpstreamLogo {
  body: Buffer;
  contentType: string;
}

/** Each provider's logo by its id (those with a logoFile). */
export function readUpstreamLogos(entries: readonly IdentityProviderConfig[]): Map<string, UpstreamLogo> {
  const logos = new Map<string, UpstreamLogo>();
  for (const entry of entries) {
    if (entry.logoFile === null) continue;
    const contentType = LOGO_TYPES[extname(entry.logoFile).toLowerCase()] ?? 'application/octet-stream';
    logos.set(entry.id, { body: readFileSync(entry.logoFile), contentType });
  }
  return logos;
}
