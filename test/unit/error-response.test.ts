import type { FastifyError } from 'fastify';
import { describe, expect, it } from 'vitest';
import { errorResponse, requestError } from '../../src/http/error-response.js';
import {
  Forbidden,
  InsufficientScope,
  InvalidClient,
  InvalidGrant,
  InvalidRequest,
  InvalidToken,
  OAuthError,
  PayloadTooLarge,
  ServerError,
  TemporarilyUnavailable,
  TooManyAttempts,
  TooManyRequests,
  Unauthorized,
  UnsupportedMediaType,
  httpErrorClasses,
} from '../../src/oauth/errors.js';

const frameworkError = (fields: Partial<FastifyError>): FastifyError => Object.assign(new Error('refused'), fields) as FastifyError;

describe('errorResponse: the one decision of what an error sends', () => {
  it('sends the status the error declares, no-store and the JSON body', () => {
    expect(errorResponse(new InvalidGrant(), 'realm')).toEqual({
      status: 400,
      headers: { 'cache-control': 'no-store' },
      body: new InvalidGrant().toJSON(),
    });
  });

  it('server_error is 500; temporarily_unavailable is 503 with Retry-After: 5 (RFC 9110 section 15.6.4)', () => {
    expect(errorResponse(new ServerError(), 'realm')).toMatchObject({ status: 500, body: { error: 'server_error' } });
    expect(errorResponse(new TemporarilyUnavailable(), 'realm')).toMatchObject({ status: 503, headers: { 'retry-after': '5' } });
  });

  it('a lockout is 429 with Retry-After from retryAfter', () => {
    const error = new TooManyRequests(42, 'Too many failed client authentications.');
    expect(error.retryAfter).toBe(42);
    expect(errorResponse(error, 'realm')).toMatchObject({ status: 429, headers: { 'retry-after': '42' } });
    expect(errorResponse(new TooManyAttempts(7), 'realm')).toMatchObject({
      status: 429,
      headers: { 'retry-after': '7' },
      body: { error: 'too_many_requests' },
    });
  });

  it('challenges: Basic after a Basic attempt only (RFC 6749 section 5.2), Bearer for token errors (RFC 6750 section 3), Basic for the admin', () => {
    expect(errorResponse(new InvalidClient({ triedBasic: true }), 'r').headers['www-authenticate']).toBe('Basic realm="r"');
    expect(errorResponse(new InvalidClient(), 'r').headers['www-authenticate']).toBeUndefined();
    expect(errorResponse(new InvalidToken('expired'), 'r').headers['www-authenticate']).toBe(
      'Bearer realm="r", error="invalid_token", error_description="The access token expired"',
    );
    expect(errorResponse(new InsufficientScope(['a']), 'r').headers['www-authenticate']).toMatch(
      /^Bearer realm="r", error="insufficient_scope"/,
    );
    expect(errorResponse(new Unauthorized(), 'r').headers['www-authenticate']).toBe('Basic realm="r admin"');
  });

  it("no challenge at all without a realm (the end users' pages)", () => {
    expect(errorResponse(new Unauthorized('You need to log in first.'), null).headers).toEqual({ 'cache-control': 'no-store' });
  });
});

describe('requestError: what Fastify or a plugin refused, as an error of the catalogue', () => {
  it('keeps an error of the catalogue', () => {
    const error = new InvalidGrant();
    expect(requestError(error)).toBe(error);
  });

  it('a failed schema is invalid_request (400)', () => {
    expect(requestError(frameworkError({ validation: [], statusCode: 400 }))).toBeInstanceOf(InvalidRequest);
  });

  it('a missing or stale CSRF token is 403', () => {
    const error = requestError(frameworkError({ code: 'FST_CSRF_INVALID_TOKEN', statusCode: 403 }));
    expect(error).toBeInstanceOf(Forbidden);
    expect(error?.status).toBe(403);
  });

  it('413 and 415 keep their status; any other 4xx is a 400 invalid_request', () => {
    expect(requestError(frameworkError({ statusCode: 413 }))).toBeInstanceOf(PayloadTooLarge);
    expect(requestError(frameworkError({ statusCode: 415 }))).toBeInstanceOf(UnsupportedMediaType);
    expect(requestError(frameworkError({ statusCode: 408 }))?.status).toBe(400);
  });

  it('anything else is not a refusal but a failure, for the caller to log (null)', () => {
    expect(requestError(frameworkError({ statusCode: 500 }))).toBeNull();
    expect(requestError(frameworkError({}))).toBeNull();
  });
});

describe('httpErrorClasses: the refusals below the OAuth protocol', () => {
  it.each(httpErrorClasses.map((Class) => [Class.name, Class] as const))(
    '%s has a code, a description and a 4xx status',
    (_name, Class) => {
      const error = new Class();
      expect(error).toBeInstanceOf(OAuthError);
      expect(error.code).toMatch(/^[a-z_]+$/);
      expect(error.description.length).toBeGreaterThan(0);
      expect(error.status).toBeGreaterThanOrEqual(400);
      expect(error.status).toBeLessThan(500);
    },
  );

  it('the 413 and 415 texts', () => {
    expect(new PayloadTooLarge().toJSON()).toEqual({ error: 'invalid_request', error_description: 'The request body is too large.' });
    expect(new UnsupportedMediaType().toJSON()).toEqual({
      error: 'invalid_request',
      error_description: 'The request body must be application/x-www-form-urlencoded.',
    });
  });
});
