import { describe, expect, it } from 'vitest';
import type { AuthorizationRequest } from '../../src/oauth/authorization/authorization-request.js';
import { errorDelivery, successDelivery } from '../../src/oauth/authorization/authorization-response.js';
import { authorizationIssuer } from '../../src/oauth/issuer.js';
import { AccessDenied, InvalidRedirectUri } from '../../src/oauth/errors.js';
import { NO_OPENID_PARAMETERS } from '../../src/oauth/openid/openid-request.js';
import type { AccessGrantRecord, ApplicationRecord } from '../../src/oauth/store.js';

const ISSUER = 'https://auth.example.com';
const now = new Date('2026-01-01T00:00:00Z');
const application = { id: 1, uid: 'client', name: 'App' } as ApplicationRecord;
const request = (overrides: Partial<AuthorizationRequest> = {}): AuthorizationRequest => ({
  application,
  redirectUri: 'https://client.example.com/cb?x=1',
  responseType: 'code',
  responseMode: 'query',
  scopes: ['read'],
  askedScopes: ['read'],
  state: 'st',
  codeChallenge: null,
  codeChallengeMethod: null,
  oidc: NO_OPENID_PARAMETERS,
  resources: [],
  dpopJkt: null,
  requestUri: null,
  ...overrides,
});
const codeResult = { responseType: 'code' as const, code: 'CODE', grant: {} as AccessGrantRecord };

describe('delivering an authorization response (reference 4.5, RFC 9207)', () => {
  it('query: code, state and iss appended to the redirect URI, its own query kept', () => {
    expect(successDelivery(request(), codeResult, ISSUER, now)).toEqual({
      kind: 'redirect',
      location: 'https://client.example.com/cb?x=1&code=CODE&state=st&iss=https%3A%2F%2Fauth.example.com',
    });
  });

  it('fragment: the parameters go after #', () => {
    const delivery = successDelivery(request({ responseMode: 'fragment', state: undefined }), codeResult, ISSUER, now);
    expect(delivery).toEqual({
      kind: 'redirect',
      location: 'https://client.example.com/cb?x=1#code=CODE&iss=https%3A%2F%2Fauth.example.com',
    });
  });

  it('form_post: the non-blank fields, to the redirect URI', () => {
    expect(successDelivery(request({ responseMode: 'form_post', state: '' }), codeResult, ISSUER, now)).toEqual({
      kind: 'form_post',
      action: 'https://client.example.com/cb?x=1',
      fields: [
        ['code', 'CODE'],
        ['iss', ISSUER],
      ],
    });
  });

  it('out-of-band: the code is for the native page; state and iss are not carried', () => {
    expect(successDelivery(request({ redirectUri: 'urn:ietf:wg:oauth:2.0:oob' }), codeResult, ISSUER, now)).toEqual({
      kind: 'native',
      code: 'CODE',
    });
  });

  it('an error without a verified redirect URI is a page, never a redirect', () => {
    const error = new InvalidRedirectUri();
    expect(errorDelivery({ ok: false, rule: 'redirect_uri_registered', error, redirect: null }, ISSUER)).toEqual({ kind: 'page', error });
  });

  it('an error with a verified redirect URI carries error, error_description, state and iss', () => {
    const delivery = errorDelivery(
      {
        ok: false,
        rule: 'denied',
        error: new AccessDenied(),
        redirect: { redirectUri: 'https://client.example.com/cb', responseMode: 'query', state: 'a b' },
      },
      ISSUER,
    );
    expect(delivery).toEqual({
      kind: 'redirect',
      location:
        'https://client.example.com/cb?error=access_denied&error_description=The+resource+owner+or+authorization+server+denied+the+request.&state=a+b&iss=https%3A%2F%2Fauth.example.com',
    });
  });
});

describe('the iss of authorization responses (RFC 9207)', () => {
  it('is baseUrl without a trailing slash, as the metadata issuer', () => {
    expect(authorizationIssuer('https://auth.example.com/')).toBe('https://auth.example.com');
    expect(authorizationIssuer('https://auth.example.com/tenant')).toBe('https://auth.example.com/tenant');
  });
});
