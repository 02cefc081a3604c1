import { decodeJwt, generateKeyPair, jwtVerify, SignJWT, type JWTPayload } from 'jose';
import { describe, expect, it } from 'vitest';
import type { AuthorizationFailure, AuthorizationRequest, ErrorRedirect } from '../../src/oauth/authorization/authorization-request.js';
import { errorDelivery, successDelivery, type ResponseIssuer } from '../../src/oauth/authorization/authorization-response.js';
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
  authorizationDetails: [],
  authorizationDetailsTypes: {},
  dpopJkt: null,
  requestUri: null,
  requestObject: null,
  responseSigningAlg: 'RS256',
  uiLocales: null,
  ...overrides,
});
/** The resource owner said no to a request whose client and redirect URI are verified. */
const denied = (redirect: Pick<ErrorRedirect, 'responseMode' | 'state'>): AuthorizationFailure => ({
  ok: false,
  rule: 'denied',
  error: new AccessDenied(),
  redirect: { redirectUri: 'https://client.example.com/cb', clientId: 'client', signingAlg: null, vouched: true, ...redirect },
});
const codeResult = { responseType: 'code' as const, code: 'CODE', grant: {} as AccessGrantRecord };
// A real ES256 key signs the JWT-secured (JARM) responses, which the tests verify with its public half.
const keys = await generateKeyPair('ES256', { extractable: true });
const from: ResponseIssuer = {
  issuer: ISSUER,
  now,
  signer: { sign: (payload: JWTPayload) => new SignJWT(payload).setProtectedHeader({ alg: 'ES256' }).sign(keys.privateKey) },
};
const verified = async (jwt: string) =>
  (await jwtVerify(jwt, keys.publicKey, { issuer: ISSUER, audience: 'client', currentDate: now, algorithms: ['ES256'] })).payload;

describe('delivering an authorization response (reference 4.5, RFC 9207)', () => {
  it('query: code, state and iss appended to the redirect URI, its own query kept', async () => {
    expect(await successDelivery(request(), codeResult, from)).toEqual({
      kind: 'redirect',
      location: 'https://client.example.com/cb?x=1&code=CODE&state=st&iss=https%3A%2F%2Fauth.example.com',
    });
  });

  it('fragment: the parameters go after #', async () => {
    const delivery = await successDelivery(request({ responseMode: 'fragment', state: undefined }), codeResult, from);
    expect(delivery).toEqual({
      kind: 'redirect',
      location: 'https://client.example.com/cb?x=1#code=CODE&iss=https%3A%2F%2Fauth.example.com',
    });
  });

  it('form_post: the non-blank fields, to the redirect URI', async () => {
    expect(await successDelivery(request({ responseMode: 'form_post', state: '' }), codeResult, from)).toEqual({
      kind: 'form_post',
      action: 'https://client.example.com/cb?x=1',
      fields: [
        ['code', 'CODE'],
        ['iss', ISSUER],
      ],
    });
  });

  it('out-of-band: the code is for the native page; state and iss are not carried', async () => {
    expect(await successDelivery(request({ redirectUri: 'urn:ietf:wg:oauth:2.0:oob' }), codeResult, from)).toEqual({
      kind: 'native',
      code: 'CODE',
    });
  });

  it('an error without a verified redirect URI is a page, never a redirect', async () => {
    const error = new InvalidRedirectUri();
    expect(await errorDelivery({ ok: false, rule: 'redirect_uri_registered', error, redirect: null }, from)).toEqual({
      kind: 'page',
      error,
    });
  });

  it('an error with a verified redirect URI carries error, error_description, state and iss', async () => {
    const delivery = await errorDelivery(denied({ responseMode: 'query', state: 'a b' }), from);
    expect(delivery).toEqual({
      kind: 'redirect',
      location:
        'https://client.example.com/cb?error=access_denied&error_description=The+resource+owner+or+authorization+server+denied+the+request.&state=a+b&iss=https%3A%2F%2Fauth.example.com',
    });
  });
});

describe('JWT-secured responses (JARM section 4)', () => {
  it('query.jwt: one response parameter, a JWT for the client with the parameters, iss, aud and exp', async () => {
    const delivery = await successDelivery(request({ responseMode: 'query.jwt' }), codeResult, from);
    if (delivery.kind !== 'redirect') throw new Error(`a redirect expected, got ${delivery.kind}`);
    const location = new URL(delivery.location);
    expect([...location.searchParams.keys()]).toEqual(['x', 'response']);
    const claims = await verified(location.searchParams.get('response')!);
    expect(claims).toEqual({ code: 'CODE', state: 'st', iss: ISSUER, aud: 'client', exp: now.getTime() / 1000 + 600 });
  });

  it('fragment.jwt and form_post.jwt carry the same JWT after # and as the only field', async () => {
    const fragment = await successDelivery(request({ responseMode: 'fragment.jwt', state: undefined }), codeResult, from);
    if (fragment.kind !== 'redirect') throw new Error(`a redirect expected, got ${fragment.kind}`);
    const [, hash] = fragment.location.split('#');
    expect(decodeJwt(new URLSearchParams(hash).get('response')!)).toMatchObject({ code: 'CODE', aud: 'client' });
    const posted = await successDelivery(request({ responseMode: 'form_post.jwt' }), codeResult, from);
    if (posted.kind !== 'form_post') throw new Error(`a form expected, got ${posted.kind}`);
    expect(posted.fields.map(([name]) => name)).toEqual(['response']);
    expect(await verified(posted.fields[0]![1])).toMatchObject({ code: 'CODE', state: 'st' });
  });

  it('an error to a verified redirect URI is signed too', async () => {
    const delivery = await errorDelivery(denied({ responseMode: 'query.jwt', state: 's' }), from);
    if (delivery.kind !== 'redirect') throw new Error(`a redirect expected, got ${delivery.kind}`);
    expect(await verified(new URL(delivery.location).searchParams.get('response')!)).toEqual({
      error: 'access_denied',
      error_description: new AccessDenied().description,
      state: 's',
      iss: ISSUER,
      aud: 'client',
      exp: now.getTime() / 1000 + 600,
    });
  });
});

describe('the iss of authorization responses (RFC 9207)', () => {
  it('is baseUrl without a trailing slash, as the metadata issuer', async () => {
    expect(authorizationIssuer('https://auth.example.com/')).toBe('https://auth.example.com');
    expect(authorizationIssuer('https://auth.example.com/tenant')).toBe('https://auth.example.com/tenant');
  });
});
