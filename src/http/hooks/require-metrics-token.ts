import type { preHandlerHookHandler } from 'fastify';
import { InvalidToken } from '../../oauth/errors.js';
import { constantTimeEqual } from '../../oauth/secrets.js';

// RFC 6750 section 2.1: `Authorization: Bearer <b64token>`; anything else carries no Bearer credential.
const BEARER = /^Bearer +([A-Za-z0-9\-._~+/]+=*)$/i;

/**
 * GET /metrics for the operator only (issue 29 item 13): the Bearer token of env METRICS_TOKEN, compared in
 * constant time (both sides hashed first, so neither its length nor its content leaks through timing).
 */
export function requireMetricsToken(token: string): preHandlerHookHandler {
  return (request, _reply, done) => {
    const presented = BEARER.exec(request.headers.authorization?.trim() ?? '')?.[1];
    if (presented !== undefined && constantTimeEqual(presented, token)) return done();
    // RFC 6750 section 3.1: a request without credentials gets a challenge without an error code (the error handler's).
    done(new InvalidToken(presented === undefined ? 'missing' : 'unknown'));
  };
}
