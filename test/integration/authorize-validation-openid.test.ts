import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPENID_RULES } from '../../src/oauth/openid/openid-request.js';
import { authorizeUrl, createClient, createUser, signedIn } from '../helpers/end-user.js';
import { openIdServer } from '../helpers/openid.js';
import { backend } from '../helpers/test-database.js';
import { buildTestServer, type TestServer } from '../helpers/test-server.js';
import { authorizeRequests, CALLBACK, expectRedirect, ruleTests, type AuthorizeRequests } from './authorize-validation-support.js';

// The authorization endpoint's OpenID Connect rules (Core 3.1.2.1, 5.5, 6.1, 6.2) by name, through HTTP; the other
// rules are in authorize-validation.test.ts.

const { tested, ruleTest } = ruleTests();

describe(`OpenID Connect rules, with openid.enabled (${backend})`, () => {
  let server: TestServer;
  let requests: AuthorizeRequests;
  beforeAll(async () => {
    server = await openIdServer();
    requests = await authorizeRequests(server, { scope: 'openid', state: 's' });
  });
  afterAll(() => server.close());

  const get = (overrides: Record<string, string>) => requests.get(overrides);

  ruleTest('request_uri_absent', 'a request_uri is request_uri_not_supported (Core 6.2), redirected', async () => {
    expectRedirect(
      await get({ request_uri: 'https://client.example.com/request.jwt' }),
      'request_uri_not_supported',
      'The request_uri parameter is not supported.',
    );
  });

  ruleTest('registration_absent', 'a registration parameter is registration_not_supported (Core 3.1.2.6, 7.2.1), redirected', async () => {
    expectRedirect(
      await get({ registration: '{"client_name":"Self-issued"}' }),
      'registration_not_supported',
      'The registration parameter is not supported.',
    );
    expect((await get({ registration: '' })).statusCode).toBe(200);
  });

  it('request and request_uri together are invalid_request (Core 6), shown, not request_uri_not_supported nor redirected', async () => {
    const response = await get({ request: 'eyJhbGciOiJub25lIn0.e30.', request_uri: 'https://client.example.com/request.jwt' });
    expect(response.statusCode).toBe(400);
    expect(response.headers.location).toBeUndefined();
    expect(response.body).toContain('The request and request_uri parameters must not be used together.');
  });

  ruleTest('prompt_valid', 'an unknown prompt value, or none with another, is invalid_request, redirected', async () => {
    expectRedirect(
      await get({ prompt: 'bogus' }),
      'invalid_request',
      'The prompt parameter must be made of none, login, consent, select_account.',
    );
    expectRedirect(await get({ prompt: 'none login' }), 'invalid_request', 'The prompt value none cannot be combined with other values.');
    expect((await get({ prompt: 'login consent' })).statusCode).toBe(302);
  });

  ruleTest('max_age_valid', 'a max_age that is not a number of seconds is invalid_request', async () => {
    const description = 'The max_age parameter must be a non-negative whole number of seconds.';
    for (const maxAge of ['-1', 'ten', '1.5']) expectRedirect(await get({ max_age: maxAge }), 'invalid_request', description);
    expect((await get({ max_age: '3600' })).statusCode).toBe(200);
    // No upper bound (Core 3.1.2.1): a client's "any age" is a whole number too, and the sign-in just made meets it.
    for (const maxAge of ['2147483647', '99999999999999999999']) expect((await get({ max_age: maxAge })).statusCode).toBe(200);
  });

  ruleTest('nonce_valid', 'a nonce longer than 512 characters is invalid_request', async () => {
    expectRedirect(await get({ nonce: 'n'.repeat(513) }), 'invalid_request', 'The nonce parameter must be at most 512 characters.');
    expect((await get({ nonce: 'n'.repeat(512) })).statusCode).toBe(200);
  });

  ruleTest('claims_valid', 'a claims parameter that is not a JSON object of claim requests is invalid_request (Core 5.5)', async () => {
    expectRedirect(
      await get({ claims: '{"userinfo":' }),
      'invalid_request',
      'The claims parameter must be a JSON object (OpenID Connect Core 5.5); it is not valid JSON.',
    );
    expect((await get({ claims: '{"userinfo":{"email":null}}' })).statusCode).toBe(200);
  });

  ruleTest(
    'claims_acr_satisfiable',
    'an essential acr no sign-in here reaches is unmet_authentication_requirements (Core 5.5.1.1)',
    async () => {
      expectRedirect(
        await get({ claims: '{"id_token":{"acr":{"essential":true,"value":"urn:example:acr:gold"}}}' }),
        'unmet_authentication_requirements',
        'None of the essential acr values of the claims parameter can be met; a sign-in here reaches urn:oauth-service:acr:pwd, urn:oauth-service:acr:mfa, urn:oauth-service:acr:phr.',
      );
      expect((await get({ claims: '{"id_token":{"acr":{"value":"urn:example:mfa"}}}' })).statusCode).toBe(200);
      // One reachable value among the essential ones is enough: the sign-in is asked to reach it.
      const reachable = '{"id_token":{"acr":{"essential":true,"values":["urn:example:acr:gold","urn:oauth-service:acr:pwd"]}}}';
      expect((await get({ claims: reachable })).statusCode).toBe(200);
    },
  );

  it('with openid.enabled false the OpenID parameters are unknown, hence ignored (Core 3.1.2.1 of any other server)', async () => {
    const plain = await buildTestServer();
    try {
      await createUser(plain.deps, 'bob');
      const bob = await signedIn(plain.app, 'bob');
      const app = (await createClient(plain.deps)).application;
      const response = await bob.request({
        method: 'GET',
        url: authorizeUrl({ client_id: app.uid, redirect_uri: CALLBACK, response_type: 'code', prompt: 'bogus', max_age: 'x' }),
      });
      expect(response.statusCode).toBe(200);
    } finally {
      await plain.close();
    }
  });
});

describe('the OpenID Connect rules', () => {
  it('every one has a test by name here', () => {
    expect(OPENID_RULES.map((rule) => rule.name).filter((name) => !tested.has(name))).toEqual([]);
  });
});
