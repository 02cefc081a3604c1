import { describe, it, expect } from 'vitest';
import {
  AccessDenied,
  InsufficientScope,
  InvalidClient,
  InvalidGrant,
  InvalidRedirectUri,
  InvalidRequest,
  InvalidScope,
  InvalidToken,
  OAuthError,
  RevocationNotAuthorized,
  ServerError,
  TemporarilyUnavailable,
  UnauthorizedClient,
  UnsupportedGrantType,
  UnsupportedResponseMode,
  UnsupportedResponseType,
  oauthErrorClasses,
  AuthorizationPending,
  SlowDown,
  ExpiredToken,
} from '../../src/oauth/errors.js';
import { wwwAuthenticateValue } from '../../src/http/error-response.js';

const SERVER_ERROR_TEXT = 'The authorization server encountered an unexpected condition which prevented it from fulfilling the request.';

// [instance, code, status, description]: descriptions copied from the reference, section 2.4.
const table: Array<[OAuthError, string, number, string]> = [
  [
    new InvalidRequest(),
    'invalid_request',
    400,
    'The request is missing a required parameter, includes an unsupported parameter value, or is otherwise malformed.',
  ],
  [
    new InvalidRedirectUri(),
    'invalid_redirect_uri',
    400,
    "The requested redirect URI is malformed or doesn't match the client redirect URI.",
  ],
  [new UnauthorizedClient(), 'unauthorized_client', 400, 'The client is not authorized to perform this request using this method.'],
  [
    new AuthorizationPending(),
    'authorization_pending',
    400,
    'The authorization request is still pending as the end user has not yet completed the user interaction steps.',
  ],
  [
    new SlowDown(10),
    'slow_down',
    400,
    'The authorization request is still pending and polling should be slowed down: wait 10 seconds between requests.',
  ],
  [new ExpiredToken(), 'expired_token', 400, 'The device_code has expired, and the device authorization session has concluded.'],
  [new AccessDenied(), 'access_denied', 400, 'The resource owner or authorization server denied the request.'],
  [new InvalidScope(), 'invalid_scope', 400, 'The requested scope is invalid, unknown, or malformed.'],
  [new ServerError(), 'server_error', 500, SERVER_ERROR_TEXT],
  [
    new TemporarilyUnavailable(),
    'temporarily_unavailable',
    503,
    'The authorization server is currently unable to handle the request due to a temporary overloading or maintenance of the server.',
  ],
  [new UnsupportedResponseType(), 'unsupported_response_type', 400, 'The authorization server does not support this response type.'],
  [new UnsupportedResponseMode(), 'unsupported_response_mode', 400, 'The authorization server does not support this response mode.'],
  [
    new InvalidClient(),
    'invalid_client',
    401,
    'Client authentication failed due to unknown client, no client authentication included, or unsupported authentication method.',
  ],
  [
    new InvalidGrant(),
    'invalid_grant',
    400,
    'The provided authorization grant is invalid, expired, revoked, does not match the redirection URI used in the authorization request, or was issued to another client.',
  ],
  [new UnsupportedGrantType(), 'unsupported_grant_type', 400, 'The authorization grant type is not supported by the authorization server.'],
  [new InvalidToken('revoked'), 'invalid_token', 401, 'The access token was revoked'],
  [new InvalidToken('expired'), 'invalid_token', 401, 'The access token expired'],
  [new InvalidToken('unknown'), 'invalid_token', 401, 'The access token is invalid'],
  [new InsufficientScope(['write', 'admin']), 'insufficient_scope', 403, 'Access to this resource requires scope "write admin".'],
  [new RevocationNotAuthorized(), 'unauthorized_client', 403, 'You are not authorized to revoke this token'],
];

describe('OAuth error classes (RFC 6749 section 5.2, RFC 6750 section 3.1, reference 2.4)', () => {
  it.each(table)('%s has the reference code, status and exact description', (error, code, status, description) => {
    expect(error).toBeInstanceOf(OAuthError);
    expect(error).toBeInstanceOf(Error);
    expect(error.code).toBe(code);
    expect(error.status).toBe(status);
    expect(error.description).toBe(description);
    expect(error.message).toBe(description);
    expect(error.toJSON()).toEqual({ error: code, error_description: description });
    expect(JSON.parse(JSON.stringify(error))).toEqual({ error: code, error_description: description });
  });

  it('names each instance after its class, for logs and stack traces', () => {
    expect(new InvalidGrant().name).toBe('InvalidGrant');
    expect(new RevocationNotAuthorized().name).toBe('RevocationNotAuthorized');
  });

  it('unauthorized_client is 400, not Doorkeeper 401 (RFC 6749 section 5.2, SPEC 8)', () => {
    expect(new UnauthorizedClient().status).toBe(400);
  });

  it('InvalidToken defaults to the "invalid" text and keeps its reason', () => {
    expect(new InvalidToken().description).toBe('The access token is invalid');
    expect(new InvalidToken('expired').reason).toBe('expired');
  });

  it('InvalidClient records whether the client tried HTTP Basic (RFC 6749 section 5.2 challenge)', () => {
    expect(new InvalidClient().triedBasic).toBe(false);
    expect(new InvalidClient({ triedBasic: true }).triedBasic).toBe(true);
  });

  it('ServerError keeps its cause for the log but never shows it', () => {
    const cause = new Error('database said no');
    const error = new ServerError({ cause });
    expect(error.cause).toBe(cause);
    expect(JSON.stringify(error)).not.toContain('database');
  });
});

describe('invalid_request factories (reference 2.4, SPEC 8)', () => {
  it('missingParameter names the parameter', () => {
    expect(InvalidRequest.missingParameter('grant_type').description).toBe('Missing required parameter: grant_type.');
  });

  it('multipleClientAuthMethods (RFC 6749 section 2.3)', () => {
    expect(InvalidRequest.multipleClientAuthMethods().description).toBe(
      'The request utilizes more than one mechanism for authenticating the client.',
    );
  });

  it('requestNotAuthorized', () => {
    expect(InvalidRequest.requestNotAuthorized().description).toBe(
      'Request needs to be authorized. Required parameter for authorizing the request is missing or invalid.',
    );
  });

  it('codeChallengeRequired', () => {
    expect(InvalidRequest.codeChallengeRequired().description).toBe('Code challenge is required.');
  });

  it('unsupportedCodeChallengeMethod uses invalid_request with the reference wording (RFC 7636 section 4.4.1)', () => {
    const none = InvalidRequest.unsupportedCodeChallengeMethod([]);
    const one = InvalidRequest.unsupportedCodeChallengeMethod(['S256']);
    const two = InvalidRequest.unsupportedCodeChallengeMethod(['plain', 'S256']);
    for (const error of [none, one, two]) {
      expect(error.code).toBe('invalid_request');
      expect(error.status).toBe(400);
    }
    expect(none.description).toBe('The authorization server does not support PKCE as there are no accepted code_challenge_method values.');
    expect(one.description).toBe('The code_challenge_method must be S256.');
    expect(two.description).toBe('The code_challenge_method must be one of plain, S256.');
  });

  it('accepts a custom description', () => {
    const error = new InvalidRequest('Something specific.');
    expect(error.code).toBe('invalid_request');
    expect(error.description).toBe('Something specific.');
  });
});

describe('oauthErrorClasses documents every error', () => {
  it('lists every concrete class once', () => {
    expect(new Set(oauthErrorClasses).size).toBe(oauthErrorClasses.length);
    expect(oauthErrorClasses).toHaveLength(18);
    const listed = new Set(oauthErrorClasses);
    for (const [error] of table) expect(listed.has(error.constructor as new () => OAuthError)).toBe(true);
  });

  it.each(oauthErrorClasses.map((Class) => [Class.name, Class] as const))(
    '%s has a code, a non-empty description and a status in {400, 401, 403, 500, 503}',
    (_name, Class) => {
      const error = new Class();
      expect(error.code).toMatch(/^[a-z_]+$/);
      expect(error.description.length).toBeGreaterThan(0);
      expect([400, 401, 403, 500, 503]).toContain(error.status);
    },
  );
});

describe('WWW-Authenticate value (RFC 6750 section 3)', () => {
  it('renders realm, error and description', () => {
    expect(wwwAuthenticateValue('Doorkeeper', new InvalidToken('expired'))).toBe(
      'Bearer realm="Doorkeeper", error="invalid_token", error_description="The access token expired"',
    );
  });

  it('replaces quotes, backslashes and characters outside %x20-21 / %x23-5B / %x5D-7E by "_"', () => {
    expect(wwwAuthenticateValue('Doorkeeper', new InsufficientScope(['write', 'admin']))).toBe(
      'Bearer realm="Doorkeeper", error="insufficient_scope", error_description="Access to this resource requires scope _write admin_."',
    );
    const custom = new InvalidRequest('a\\b\r\nc\u00e9\u{1F600}"');
    expect(wwwAuthenticateValue('re"alm\n', custom)).toBe('Bearer realm="re_alm_", error="invalid_request", error_description="a_b__c___"');
  });
});

describe('a parameter named in an invalid_request description (RFC 6749 section 5.2)', () => {
  it('is said in the characters error_description may hold, and cut after 64 characters', () => {
    expect(InvalidRequest.sentMoreThanOnce('scope').description).toBe('The parameter scope was sent more than once.');
    expect(InvalidRequest.nested('a"b\\c\u00e9[0]').description).toBe(
      'The parameter a_b_c_[0] is not accepted: parameters are not nested.',
    );
    expect(InvalidRequest.holdsNul('x'.repeat(100)).description).toBe(`The parameter ${'x'.repeat(64)}... holds a NUL character.`);
  });
});
