import { createHash, randomBytes } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import { isFirstApproval } from '../../../oauth/authorization/consent-replay.js';
import type { OAuthDeps } from '../../../oauth/deps.js';

// The consent form answers the page it came from. GET /oauth/authorize shows that page only once the request's sign-in
// needs are met (prompt=login, max_age, acr_values, a pushed or signed request's own, authentication.requireSecondFactor);
// a POST made up in a browser without that page (the hidden fields are easy to write) would skip them all. So showing
// the page leaves a ticket for its request in the session, and the approval takes it.
//
// One click gives one code: each page shown has an id of its own (a hidden field of its form), and its ticket is used
// up on the server too (consent-replay.ts; a race audit): the session cookie is the browser's, and a copy of it from
// before the approval, or the same form posted several times at once, still held the ticket.

declare module '@fastify/secure-session' {
  interface SessionData {
    /** The consent pages this browser was shown and has not answered, newest last (a few: tabs side by side). */
    consentShownFor: string[];
  }
}

/** The consent form's field naming the page it came from. */
export const CONSENT_PAGE_FIELD = 'consent_page';

/** Pages shown and not yet answered that a session remembers: the cookie stays small, an old tab asks again. */
const KEPT_TICKETS = 4;

/** The request as its consent form carries it (the hidden fields, in their order), reduced to a short digest, and the page. */
function ticketOf(fields: ReadonlyArray<readonly [string, string]>, page: string): string {
  return `${createHash('sha256').update(JSON.stringify(fields)).digest('base64url').slice(0, 22)}.${page}`;
}

/** Leaves the ticket of a consent page about to be shown; the page's id, for its form. */
export function rememberConsentShown(request: FastifyRequest, fields: ReadonlyArray<readonly [string, string]>): string {
  const page = randomBytes(12).toString('base64url');
  const shown = request.session.get('consentShownFor') ?? [];
  request.session.set('consentShownFor', [...shown, ticketOf(fields, page)].slice(-KEPT_TICKETS));
  return page;
}

/** Whether this browser was shown the consent page `page` of this request, not answered yet; its ticket is used up. */
export async function takeConsentShown(
  deps: Pick<OAuthDeps, 'stores' | 'now'>,
  request: FastifyRequest,
  fields: ReadonlyArray<readonly [string, string]>,
  page: unknown,
): Promise<boolean> {
  if (!isPageId(page)) return false;
  const ticket = ticketOf(fields, page);
  return (request.session.get('consentShownFor') ?? []).includes(ticket) && useUp(deps, request, ticket);
}

/**
 * A denial answers its page too: its ticket is used up, in the session and on the server, so that an approval of the
 * same page afterwards (another tab, the back button) asks again instead of giving a code after the access_denied.
 */
export async function useUpConsentShown(deps: Pick<OAuthDeps, 'stores' | 'now'>, request: FastifyRequest, page: unknown): Promise<void> {
  if (!isPageId(page)) return;
  const ticket = (request.session.get('consentShownFor') ?? []).find((kept) => kept.endsWith(`.${page}`));
  if (ticket !== undefined) await useUp(deps, request, ticket);
}

const isPageId = (page: unknown): page is string => typeof page === 'string' && /^[\w-]{16}$/.test(page);

/** Removes the ticket from the session and claims it on the server: true when this was its first use. */
function useUp(deps: Pick<OAuthDeps, 'stores' | 'now'>, request: FastifyRequest, ticket: string): Promise<boolean> {
  const rest = (request.session.get('consentShownFor') ?? []).filter((kept) => kept !== ticket);
  request.session.set('consentShownFor', rest.length > 0 ? rest : undefined);
  return isFirstApproval(deps, ticket);
}
