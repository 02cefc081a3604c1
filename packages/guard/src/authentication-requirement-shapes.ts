// RFC 9470 step-up: the shapes of what a route asks of the user's sign-in, apart from the code that checks it
// (authentication-requirement.ts), so that the option types and the guard's errors can name them without importing
// that code, which itself reads the guard's token type.

/** The sign-in a route requires (RFC 9470 section 3). */
export interface AuthenticationRequirement {
  /** The acr values any one of which the token's `acr` must be, e.g. the service's `urn:oauth-service:acr:mfa`. */
  acr?: readonly string[];
  /** Seconds: the user must have signed in at most this long ago (the token's `auth_time`). */
  maxAge?: number;
}

/** A requirement as checked: every list frozen, absent members empty or null. */
export interface CheckedRequirement {
  acr: readonly string[];
  maxAge: number | null;
}
