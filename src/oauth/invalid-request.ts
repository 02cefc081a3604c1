// invalid_request (RFC 6749 sections 4.1.2.1 and 5.2), the catalogue's most varied error: the reference's generic
// text, its named cases, and this service's own, which name the parameter at fault. Re-exported by errors.ts.
import { OAuthError } from './oauth-error.js';

export const GENERIC_INVALID_REQUEST =
  'The request is missing a required parameter, includes an unsupported parameter value, or is otherwise malformed.';

// A parameter's name as an error repeats it: in the characters an error_description may hold (RFC 6749 section 5.2,
// others as "_"), and cut short, so whoever sent a name of a megabyte does not get it back.
const shownName = (name: string) => {
  const safe = name.slice(0, 64).replace(/[^\x20\x21\x23-\x5B\x5D-\x7E]/gu, '_');
  return name.length > 64 ? `${safe}...` : safe;
};

export class InvalidRequest extends OAuthError {
  constructor(description: string = GENERIC_INVALID_REQUEST) {
    super('invalid_request', 400, description);
  }

  static missingParameter(name: string): InvalidRequest {
    return new InvalidRequest(`Missing required parameter: ${name}.`);
  }

  // RFC 6749 section 3.1 and 3.2: request parameters MUST NOT be included more than once.
  static sentMoreThanOnce(name: string): InvalidRequest {
    return new InvalidRequest(`The parameter ${shownName(name)} was sent more than once.`);
  }

  // RFC 6749 appendix A: no parameter's characters include NUL (and PostgreSQL's text cannot hold one).
  static holdsNul(name: string): InvalidRequest {
    return new InvalidRequest(`The parameter ${shownName(name)} holds a NUL character.`);
  }

  // `scope[0]`, `client_id[x]`: a form names each parameter once, flat.
  static nested(name: string): InvalidRequest {
    return new InvalidRequest(`The parameter ${shownName(name)} is not accepted: parameters are not nested.`);
  }

  // SPEC 8: a Basic client and another client_id in the body are two identities, refused rather than resolved.
  static twoClients(): InvalidRequest {
    return new InvalidRequest('The client_id in the body names another client than the Authorization header.');
  }

  // RFC 6749 section 2.3: the client MUST NOT use more than one authentication method in each request.
  static multipleClientAuthMethods(): InvalidRequest {
    return new InvalidRequest('The request utilizes more than one mechanism for authenticating the client.');
  }

  static requestNotAuthorized(): InvalidRequest {
    return new InvalidRequest('Request needs to be authorized. Required parameter for authorizing the request is missing or invalid.');
  }

  static codeChallengeRequired(): InvalidRequest {
    return new InvalidRequest('Code challenge is required.');
  }

  // RFC 7636 section 4.4.1 names invalid_request here; Doorkeeper's own code invalid_code_challenge_method is
  // dropped (SPEC 8) but its wording is kept.
  static unsupportedCodeChallengeMethod(methods: readonly string[]): InvalidRequest {
    if (methods.length === 0) {
      return new InvalidRequest('The authorization server does not support PKCE as there are no accepted code_challenge_method values.');
    }
    if (methods.length === 1) return new InvalidRequest(`The code_challenge_method must be ${methods[0]}.`);
    return new InvalidRequest(`The code_challenge_method must be one of ${methods.join(', ')}.`);
  }
}
