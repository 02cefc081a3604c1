import { OAuthError } from './oauth-error.js';

// Refusals below the OAuth protocol, in the same JSON shape: the body could not be read, no such route or record,
// a form without its CSRF token, and the admin group's sign-in (SPEC 3.6), whose codes are its own.

// RFC 9110 section 15.5.14.
export class PayloadTooLarge extends OAuthError {
  constructor() {
    super('invalid_request', 413, 'The request body is too large.');
  }
}

// RFC 9110 section 15.5.16. Seed, Endpoints: the API group takes form-urlencoded bodies only.
export class UnsupportedMediaType extends OAuthError {
  constructor(description = 'The request body must be application/x-www-form-urlencoded.') {
    super('invalid_request', 415, description);
  }
}

export class NotFound extends OAuthError {
  constructor(description = 'Not found.') {
    super('not_found', 404, description);
  }
}

export class MethodNotAllowed extends OAuthError {
  constructor(description = 'Method not allowed.') {
    super('method_not_allowed', 405, description);
  }
}

/** Sign in first. At the admin group, whose sign-in is HTTP Basic (RFC 7617), it comes with a Basic challenge. */
export class Unauthorized extends OAuthError {
  constructor(description = 'Sign in with the admin user name and password.') {
    super('unauthorized', 401, description);
  }
}

export class Forbidden extends OAuthError {
  constructor(description = 'Forbidden.') {
    super('forbidden', 403, description);
  }

  /** A form posted without its CSRF token, or with a stale one. */
  static formExpired(): Forbidden {
    return new FormExpired();
  }
}

/** Forbidden.formExpired(): the end users' pages say it in their language, the API in this English. */
export class FormExpired extends Forbidden {
  constructor() {
    super('This form has expired or was not sent from this site. Go back, reload the page and try again.');
  }
}

/** The admin sign-in is locked for this address after repeated failures. */
export class TooManyAttempts extends OAuthError {
  constructor(retryAfter = 60, description = `Too many failed admin sign-in attempts. Try again in ${retryAfter} seconds.`) {
    super('too_many_requests', 429, description, { retryAfter });
  }
}

// The HTTP-level classes, each constructible without arguments.
export const httpErrorClasses: ReadonlyArray<new () => OAuthError> = [
  PayloadTooLarge,
  UnsupportedMediaType,
  NotFound,
  MethodNotAllowed,
  Unauthorized,
  Forbidden,
  TooManyAttempts,
];
