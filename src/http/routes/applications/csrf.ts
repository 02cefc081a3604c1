import type { FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import { mediaType } from './responses.js';

const SIMPLE_METHODS = new Set(['GET', 'HEAD', 'POST']);

/**
 * CSRF protection for the admin's state-changing routes, except for scripts calling the JSON API.
 *
 * Why that exception is safe: browsers send cached HTTP Basic credentials with every request to this origin,
 * including a form that another site submits, so every HTML form carries a token (SPEC 3.6). But another site
 * can make a browser send a JSON body, or a PATCH, PUT or DELETE, only after a CORS preflight, and this service
 * answers no preflight, so such a request never leaves the browser (Fetch standard, "CORS-safelisted"
 * methods and request headers). A request like that therefore comes from a script, with its own Basic header.
 * The exception also requires that no cookie came with the request: a browser holding our session uses the
 * token like any form. A bodiless POST (rotate_secret) is a simple request, so a script sends `{}` as JSON.
 */
export function requireCsrfToken(app: FastifyInstance) {
  return function requireCsrfTokenUnlessScripted(request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction): void {
    if (isScriptedApiCall(request)) return done();
    app.csrfProtection(request, reply, done);
  };
}

function isScriptedApiCall(request: FastifyRequest): boolean {
  const needsPreflight = !SIMPLE_METHODS.has(request.method) || mediaType(request) === 'application/json';
  return needsPreflight && request.headers.cookie === undefined;
}
