import type { FastifyRequest } from 'fastify';

export type RedirectStatus = 302 | 303;

/**
 * The status of a redirect answering `request`: 303 after a POST (an authorization request or a decision sent as a
 * form, OpenID Connect Core 3.1.2.1), so that the browser does not send the form on (RFC 9700 section 4.12, FAPI 2.0
 * 5.3.2.2); 302 otherwise, as Doorkeeper answers a GET.
 */
export const redirectStatusAfter = (request: FastifyRequest): RedirectStatus => (request.method === 'POST' ? 303 : 302);
