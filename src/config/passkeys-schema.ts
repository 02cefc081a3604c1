// config `authentication.passkeys` (issue 35 item 1): the WebAuthn relying party. By default its id is baseUrl's host
// and the one allowed origin baseUrl's origin; behind a proxy that changes the host the browser sees, both can be
// given. Part of config/authentication-schema.ts.

export const passkeysSchema = {
  type: 'object',
  additionalProperties: false,
  default: {},
  description: 'Passkeys (WebAuthn): the relying party browsers and authenticators see.',
  properties: {
    rpId: {
      type: ['string', 'null'],
      default: null,
      minLength: 1,
      maxLength: 253,
      pattern: '^[a-z0-9.-]+$',
      description:
        "The WebAuthn rp id: a registrable domain the pages' host equals or is a subdomain of. null: baseUrl's host. Changing it makes every registered passkey unusable.",
    },
    origins: {
      type: 'array',
      default: [],
      items: { type: 'string', pattern: '^https?://[^/]+$' },
      description: "The origins (scheme://host[:port]) a passkey ceremony may come from. Empty: baseUrl's origin alone.",
    },
    rpName: {
      type: 'string',
      default: 'oauth-service',
      minLength: 1,
      maxLength: 64,
      description: 'The name authenticators show for this service when a passkey is made.',
    },
  },
} as const;

export interface PasskeysConfig {
  rpId: string | null;
  origins: string[];
  rpName: string;
}

/**
 * WebAuthn Level 3 section 5.1.3: a ceremony's rp id must be its origin's host or a registrable suffix of it; an rp id
 * that no allowed origin can use would make every passkey ceremony fail, so it fails the boot instead.
 */
export function passkeysProblems({ baseUrl, authentication }: { baseUrl: string; authentication: { passkeys: PasskeysConfig } }): string[] {
  const { rpId, origins } = authentication.passkeys;
  if (rpId === null) return [];
  const hosts = (origins.length > 0 ? origins : [baseUrl]).map((origin) => new URL(origin).hostname);
  return hosts
    .filter((host) => host !== rpId && !host.endsWith(`.${rpId}`))
    .map((host) => `authentication.passkeys.rpId: ${rpId} is neither ${host} nor a domain it is under (origins, else baseUrl)`);
}
