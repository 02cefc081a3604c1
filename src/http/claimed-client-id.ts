import type { FastifyRequest } from 'fastify';
import { extractClientCredentials } from '../oauth/clients/client-credentials.js';

/**
 * The client id a request claims (Basic or the form's client_id), whether or not it authenticated: a refused request's
 * log line and span are where an operator looks for it. Malformed credentials name none; a claimed id is cut to 200
 * characters (it is whatever the caller sent).
 */
export function claimedClientId(request: FastifyRequest): string | null {
  try {
    const body = request.oauthParameters ?? {};
    return extractClientCredentials({ authorization: request.headers.authorization, body, address: '' })?.clientId.slice(0, 200) ?? null;
  } catch {
    return null;
  }
}
