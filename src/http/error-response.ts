import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { claimedClientId } from './claimed-client-id.js';
import { MAX_FORM_PARAMETERS, TOO_MANY_FORM_PARAMETERS } from './plugins/forms.js';
import {
  Forbidden,
  InsufficientScope,
  InvalidClient,
  InvalidRequest,
  InvalidToken,
  OAuthError,
  PayloadTooLarge,
  Unauthorized,
  UnsupportedMediaType,
  UseDpopNonce,
  type OAuthErrorBody,
} from '../oauth/errors.js';

/** What an error of the catalogue sends: the API writes it as JSON, the pages render its status and text. */
export interface ErrorResponse {
  status: number;
  headers: Record<string, string>;
  body: OAuthErrorBody;
}

/**
 * The one function that turns an error into a response (STYLE 4): the error's own status, no-store (an error is
 * never replayed from a cache), Retry-After when the client should wait, the WWW-Authenticate challenge its
 * code calls for, and the JSON body. `realm` null leaves the challenge out: the end users' pages answer
 * browsers, which would ask for a password at a Basic challenge.
 */
export function errorResponse(error: OAuthError, realm: string | null): ErrorResponse {
  const headers: Record<string, string> = { 'cache-control': 'no-store' };
  if (error.retryAfter !== null) headers['retry-after'] = String(error.retryAfter);
  if (error instanceof UseDpopNonce) headers['dpop-nonce'] = error.nonce;
  const challenge = realm === null ? null : challengeFor(error, realm);
  if (challenge !== null) headers['www-authenticate'] = challenge;
  return { status: error.status, headers, body: error.toJSON() };
}

function challengeFor(error: OAuthError, realm: string): string | null {
  // RFC 6749 section 5.2: a Basic challenge after a failed Basic attempt, none otherwise.
  if (error instanceof InvalidClient) return error.triedBasic ? `Basic realm="${realm}"` : null;
  // RFC 6750 section 3.1: no error code for a request that sent no token (its client may not know it needs one).
  if (error instanceof InvalidToken && error.reason === 'missing') return `Bearer realm="${headerSafe(realm)}"`;
  if (error instanceof InvalidToken || error instanceof InsufficientScope) return wwwAuthenticateValue(realm, error);
  // RFC 7617: the admin's own realm, so a browser keeps the admin's credentials apart.
  if (error instanceof Unauthorized) return `Basic realm="${realm} admin"`;
  return null;
}

/** Sets the decision's status and headers; a challenge the route set already is kept (RFC 6750 section 3.1). */
export function applyErrorResponse(reply: FastifyReply, { status, headers }: ErrorResponse): FastifyReply {
  reply.code(status);
  for (const [name, value] of Object.entries(headers)) {
    if (name !== 'www-authenticate' || !reply.hasHeader(name)) reply.header(name, value);
  }
  return reply;
}

const CSRF_ERRORS = new Set(['FST_CSRF_INVALID_TOKEN', 'FST_CSRF_MISSING_SECRET']);
// Fastify's JSON parser and the form parser refuse these before a route sees the body: said as they are, not as the
// generic invalid_request, so that a client (or its developer) knows the body, not a parameter, is wrong.
const BODY_ERRORS: Record<string, string> = {
  FST_ERR_CTP_EMPTY_JSON_BODY: 'The request body is empty, but its Content-Type is application/json.',
  FST_ERR_CTP_INVALID_JSON_BODY: 'The request body is not valid JSON, or holds a __proto__ or constructor.prototype key.',
  [TOO_MANY_FORM_PARAMETERS]: `The form has more than ${MAX_FORM_PARAMETERS} parameters.`,
};

/**
 * The catalogue's error for a request Fastify or a plugin refused: an error of the catalogue as it is, a failed
 * schema, a missing or stale CSRF token, a body too large or of another type, any other 4xx. Null for anything
 * else, which is a bug or an outage (5xx) and is logged, never shown.
 */
export function requestError(error: FastifyError | OAuthError): OAuthError | null {
  if (error instanceof OAuthError) return error;
  if (error.validation) return new InvalidRequest();
  if (CSRF_ERRORS.has(error.code)) return Forbidden.formExpired();
  const bodyProblem = BODY_ERRORS[error.code];
  if (bodyProblem !== undefined) return new InvalidRequest(bodyProblem);
  const status = error.statusCode;
  if (status === 413) return new PayloadTooLarge();
  if (status === 415) return new UnsupportedMediaType();
  if (status !== undefined && status >= 400 && status < 500) return new InvalidRequest();
  return null;
}

// RFC 6750 section 3: auth-param values are quoted-strings limited to %x20-21 / %x23-5B / %x5D-7E; anything
// else (the quote, the backslash, controls, non-ASCII) becomes "_", as Doorkeeper does. The realm comes from
// config but is sanitised too, so no value can break the header. The guard keeps its own copy
// (packages/guard/src/challenge.ts); test/unit/guard-sync.test.ts keeps the two equal.
const NOT_HEADER_SAFE = /[^\x20\x21\x23-\x5B\x5D-\x7E]/gu;

export function headerSafe(value: string): string {
  return value.replace(NOT_HEADER_SAFE, '_');
}

/** The RFC 6750 section 3 challenge naming `error`; `scheme` DPoP at a protected resource (RFC 9449 section 7.1). */
export function wwwAuthenticateValue(realm: string, error: OAuthError, scheme: 'Bearer' | 'DPoP' = 'Bearer'): string {
  return (
    `${scheme} realm="${headerSafe(realm)}", error="${headerSafe(error.code)}", ` + `error_description="${headerSafe(error.description)}"`
  );
}

/** STYLE 15: a refused request is expected and logged at info, without a stack. */
export function logRefusal(request: FastifyRequest, cause: FastifyError | OAuthError, error: OAuthError): void {
  // At a client's endpoints (token, revocation, introspection, PAR, device), with the client the request named: "client
  // X's refreshes fail" is found by its id. Not elsewhere, where a Basic header is the admin's.
  if (cause instanceof OAuthError) {
    const clientId = request.oauthParameters === undefined ? undefined : claimedClientId(request);
    request.log.info({ oauthError: error.code, ...(clientId != null && { clientId }) }, error.description);
  } else if (cause.validation) request.log.info({ validation: cause.message }, 'request validation failed');
  else if (CSRF_ERRORS.has(cause.code)) request.log.info({ csrf: cause.code }, 'form refused: missing or invalid CSRF token');
  else request.log.info({ err: cause }, 'malformed request');
}
