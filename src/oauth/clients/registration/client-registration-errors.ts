import { OAuthError } from '../../errors.js';

// RFC 7591 section 3.2.2: the registration endpoint's own error codes, both 400.

export class InvalidRegistrationRedirectUri extends OAuthError {
  constructor(description = 'The value of one or more redirect_uris is invalid.') {
    super('invalid_redirect_uri', 400, description);
  }
}

export class InvalidClientMetadata extends OAuthError {
  constructor(description: string) {
    super('invalid_client_metadata', 400, description);
  }
}
