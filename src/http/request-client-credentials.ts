import type { FastifyRequest } from 'fastify';
import { extractClientCredentials, type ClientCredentials } from '../oauth/clients/client-credentials.js';
import { limitedAddress } from '../oauth/limits/limited-address.js';

/**
 * The client credentials of an API request (its Basic header or form, read by readOAuthParameters) at `endpoint`,
 * the path a client assertion's `aud` may name.
 */
export function requestClientCredentials(request: FastifyRequest, endpoint: string): ClientCredentials | null {
  return extractClientCredentials({
    authorization: request.headers.authorization,
    body: request.oauthParameters,
    address: limitedAddress(request.ip),
    endpoint,
    requestId: request.id,
  });
}
