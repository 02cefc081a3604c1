import type { FastifyRequest } from 'fastify';
import type { IdentityProviderConfig } from '../../../config/identity-providers-schema.js';
import type { Config } from '../../../config/types.js';

// The identity provider buttons of /login (issue 37 item 2), and the idp_hint that skips them.

declare module '@fastify/secure-session' {
  interface SessionData {
    /** idp_hint (or Keycloak's kc_idp_hint) of the authorization request that sent the browser to /login. */
    idpHint: string;
  }
}

export interface UpstreamButton {
  name: string;
  href: string;
  logo: string | null;
}

export const upstreamButtons = (entries: readonly IdentityProviderConfig[]): UpstreamButton[] =>
  entries.map((entry) => ({
    name: entry.name,
    href: `/login/upstream/${entry.id}`,
    logo: entry.logoFile === null ? null : `/login/upstream/${entry.id}/logo`,
  }));

/**
 * Where an idp_hint naming a configured provider sends the browser (taken from the session once, so "Sign in another
 * way" after a failure shows the page); null without one. A single provider without passwords still shows its
 * button: going to the upstream unasked would leave a user nowhere to read what happens.
 */
export function hintedUpstream(config: Readonly<Config>, request: FastifyRequest): string | null {
  const hint = request.session.get('idpHint');
  if (hint === undefined) return null;
  request.session.set('idpHint', undefined);
  return config.identityProviders.some((entry) => entry.id === hint) ? `/login/upstream/${hint}` : null;
}
