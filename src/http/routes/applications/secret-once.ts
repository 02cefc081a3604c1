import type { FastifyRequest } from 'fastify';

// SPEC 3.6: the plain secret is shown once, on the page right after create or rotate. It travels there in
// the encrypted, HttpOnly session cookie (like Doorkeeper's flash) and is dropped as soon as it is shown.

export function carrySecretOnce(request: FastifyRequest, applicationId: number, secret: string | null): void {
  if (secret !== null) request.session.set('secretOnce', { applicationId, secret });
}

/** The carried secret of this application, removed from the session; null when there is none. */
export function takeSecretOnce(request: FastifyRequest, applicationId: number): string | null {
  const carried = request.session.get('secretOnce');
  if (!carried || carried.applicationId !== applicationId) return null;
  request.session.set('secretOnce', undefined);
  return carried.secret;
}
