import type { FastifyRequest } from 'fastify';
import type { OAuthDeps } from '../../oauth/deps.js';
import { isFirstAnswer } from '../../oauth/passkeys/challenge-replay.js';

// A WebAuthn ceremony's challenge (Level 3 section 13.4.3: random, used once, short-lived) is kept in the browser's
// session cookie, which is encrypted and signed: only the browser that asked for the options can answer them, on any
// instance. It is taken out at the first answer, good or bad; and since a copy of the cookie from before would still
// hold it, that first answer is also recorded until the challenge expires (challenge-replay.ts).

declare module '@fastify/secure-session' {
  interface SessionData {
    /** The open passkey ceremony: its purpose, challenge (base64url) and expiry (epoch ms). */
    passkeyChallenge: { purpose: CeremonyPurpose; challenge: string; expiresAt: number };
  }
}

/**
 * register: a new passkey (/account); sign_in: a passkey alone (/login); second_factor: after a password; link: the
 * proof of a local account before an upstream identity is linked to it (/login/upstream/link).
 */
export type CeremonyPurpose = 'register' | 'sign_in' | 'second_factor' | 'link';

/** How long the browser has to answer: WebAuthn's recommended timeout for user verification is 5 minutes. */
export const CEREMONY_TIMEOUT_MS = 5 * 60 * 1000;

export function keepChallenge(request: FastifyRequest, purpose: CeremonyPurpose, challenge: string, now: Date): void {
  request.session.set('passkeyChallenge', { purpose, challenge, expiresAt: now.getTime() + CEREMONY_TIMEOUT_MS });
}

/**
 * The challenge of an open ceremony for `purpose`, removed from the session; null when none, another, expired, or
 * answered already (from an older copy of the cookie).
 */
export async function takeChallenge(
  deps: Pick<OAuthDeps, 'stores' | 'now'>,
  request: FastifyRequest,
  purpose: CeremonyPurpose,
): Promise<string | null> {
  const open = request.session.get('passkeyChallenge');
  request.session.set('passkeyChallenge', undefined);
  if (open === undefined || open.purpose !== purpose || open.expiresAt <= deps.now().getTime()) return null;
  return (await isFirstAnswer(deps, purpose, open.challenge, new Date(open.expiresAt))) ? open.challenge : null;
}
