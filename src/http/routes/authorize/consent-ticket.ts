import { createHash } from 'node:crypto';
import type { FastifyRequest } from 'fastify';

// The consent form answers the page it came from. GET /oauth/authorize shows that page only once the request's sign-in
// needs are met (prompt=login, max_age, acr_values, a pushed or signed request's own, authentication.requireSecondFactor);
// a POST made up in a browser without that page (the hidden fields are easy to write) would skip them all. So showing
// the page leaves a ticket for its request in the session, and the approval takes it.

declare module '@fastify/secure-session' {
  interface SessionData {
    /** Digests of the requests whose consent page this browser was shown, newest last (a few: tabs side by side). */
    consentShownFor: string[];
  }
}

/** Pages shown and not yet answered that a session remembers: the cookie stays small, an old tab asks again. */
const KEPT_TICKETS = 4;

/** The request as its consent form carries it (the hidden fields, in their order), reduced to a short digest. */
function ticketOf(fields: ReadonlyArray<readonly [string, string]>): string {
  return createHash('sha256').update(JSON.stringify(fields)).digest('base64url').slice(0, 22);
}

export function rememberConsentShown(request: FastifyRequest, fields: ReadonlyArray<readonly [string, string]>): void {
  const ticket = ticketOf(fields);
  const shown = (request.session.get('consentShownFor') ?? []).filter((kept) => kept !== ticket);
  request.session.set('consentShownFor', [...shown, ticket].slice(-KEPT_TICKETS));
}

/** Whether this browser was shown the consent page of this request; its ticket is used up (one approval a page). */
export function takeConsentShown(request: FastifyRequest, fields: ReadonlyArray<readonly [string, string]>): boolean {
  const ticket = ticketOf(fields);
  const shown = request.session.get('consentShownFor') ?? [];
  if (!shown.includes(ticket)) return false;
  const rest = shown.filter((kept) => kept !== ticket);
  request.session.set('consentShownFor', rest.length > 0 ? rest : undefined);
  return true;
}
