import type { FastifyRequest } from 'fastify';
import { readParameters, type Parameters } from '../../oauth/request-parameters.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The form parameters of an OAuth request, each a single string (SPEC 3). */
    oauthParameters: Parameters;
  }
}

/** preValidation for the API group: repeated, nested or query-string credentials are invalid_request first. */
export async function readOAuthParameters(request: FastifyRequest): Promise<void> {
  request.oauthParameters = readParameters(request.body, request.query as Record<string, unknown> | undefined);
}
