import type { FastifyRequest } from 'fastify';
import type { OAuthDeps } from '../../../oauth/deps.js';
import { isFirstShowing } from '../../../oauth/clients/secret-showing.js';

// SPEC 3.6: the plain secret is shown once, on the page right after create or rotate. It travels there in
// the encrypted, HttpOnly session cookie (like Doorkeeper's flash) and is dropped as soon as it is shown; an older copy
// of the cookie shows it no more (isFirstShowing).

export function carrySecretOnce(request: FastifyRequest, applicationId: number, secret: string | null): void {
  if (secret !== null) request.session.set('secretOnce', { applicationId, secret });
}

/**
 * The carried secret of this application, removed from the session; null when there is none, or when it was shown
 * already (an older copy of the cookie: isFirstShowing).
 */
export async function takeSecretOnce(deps: OAuthDeps, request: FastifyRequest, applicationId: number): Promise<string | null> {
  const carried = request.session.get('secretOnce');
  if (!carried || carried.applicationId !== applicationId) return null;
  request.session.set('secretOnce', undefined);
  return (await isFirstShowing(deps, applicationId, carried.secret)) ? carried.secret : null;
}
