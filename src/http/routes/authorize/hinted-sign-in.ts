import { createHash } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import type { AuthorizationRequest } from '../../../oauth/authorization/authorization-request.js';
import type { OAuthDeps } from '../../../oauth/deps.js';
import { verifyIdTokenHint, type IdTokenHint } from '../../../oauth/openid/id-token-hint.js';

// OpenID Connect Core 3.1.2.1: an id_token_hint names the user the client expects. The way back from /login drops it
// from the URL (an ID token is a kilobyte of the session cookie's room for that way back), so who it named is kept
// beside it, and the sign-in is checked against it when it comes back (nextInteraction: login_required when another
// user signed in).

declare module '@fastify/secure-session' {
  interface SessionData {
    /**
     * The user an id_token_hint named (its sub and client), for the sign-in coming back to the URL whose digest is
     * `for` (the URL itself is in returnTo already: the cookie has room for one copy).
     */
    hintedSignIn: { for: string; subject: string; clientId: string };
  }
}

/** Before the sign-in: who the request's id_token_hint names, for the way back to `returnTo` (nothing without one). */
export async function keepHintForSignIn(
  deps: OAuthDeps,
  request: FastifyRequest,
  authorization: AuthorizationRequest,
  returnTo: string,
): Promise<void> {
  const token = authorization.oidc.idTokenHint;
  const hint = token === null ? null : await verifyIdTokenHint(deps, token);
  request.session.set(
    'hintedSignIn',
    hint === null ? undefined : { for: digest(returnTo), subject: hint.subject, clientId: hint.clientId },
  );
}

/** Back from the sign-in this URL asked for: the hint it carried, read once; null without one. */
export function hintOfSignIn(request: FastifyRequest): IdTokenHint | null {
  const kept = request.session.get('hintedSignIn');
  if (kept === undefined) return null;
  request.session.set('hintedSignIn', undefined);
  return kept.for === digest(request.url) ? { subject: kept.subject, clientId: kept.clientId, sessionId: null } : null;
}

/** Whether `hinted` is for the sign-in going back to `returnTo`. */
export const hintedFor = (hinted: { for: string }, returnTo: string): boolean => hinted.for === digest(returnTo);

const digest = (url: string): string => createHash('sha256').update(url).digest('base64url').slice(0, 22);
