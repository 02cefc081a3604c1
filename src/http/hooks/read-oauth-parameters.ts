import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import { readParameters, type Parameters } from '../../oauth/request-parameters.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The form parameters of an OAuth request, each a single string (SPEC 3). */
    oauthParameters: Parameters;
  }
}

/**
 * preValidation for the API group: repeated, nested or query-string credentials are invalid_request first.
 * A callback hook (Fastify passes what it throws on as the request's error): no promise per request (issue 21).
 */
export function readOAuthParameters(request: FastifyRequest, _reply: FastifyReply, done: HookHandlerDoneFunction): void {
  request.oauthParameters = readParameters(request.body, request.query as Record<string, unknown> | undefined);
  done();
}
