import { isIP } from 'node:net';
import type { Config, Readonly } from '../../config/types.js';

/** The WebAuthn relying party: its id, the name authenticators show, and the origins a ceremony may come from. */
export interface RelyingParty {
  id: string;
  name: string;
  origins: string[];
}

/**
 * WebAuthn Level 3 section 5.1.3 / 7.1: the rp id is the host of the pages' origin (or a registrable suffix of it),
 * checked through the authenticator data's rpIdHash; the origin is checked in clientDataJSON. Both default to
 * baseUrl's, what browsers see; config authentication.passkeys sets them for a proxy that changes the host.
 */
export function relyingParty({ baseUrl, authentication }: Pick<Readonly<Config>, 'baseUrl' | 'authentication'>): RelyingParty {
  const url = new URL(baseUrl);
  const { rpId, origins, rpName } = authentication.passkeys;
  return { id: rpId ?? url.hostname, name: rpName, origins: origins.length > 0 ? [...origins] : [url.origin] };
}

/**
 * Whether browsers can run ceremonies for this rp id: WebAuthn (Level 3 section 5.1.3) takes a domain, never an IP
 * address, so a service reached at http://127.0.0.1 offers no passkey sign-in (a page there would only show the
 * browser's SecurityError); localhost is a domain and works.
 */
export const passkeysUsable = (rp: Pick<RelyingParty, 'id'>): boolean => isIP(rp.id.replace(/^\[(.*)\]$/, '$1')) === 0;
