import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LightMyRequestResponse } from 'fastify';
import { AUTHORIZATION_RULES, DENIAL_RULES } from '../../src/oauth/authorization/authorization-rules.js';
import { OPENID_RULES } from '../../src/oauth/openid/openid-request.js';
import { OOB_URI } from '../../src/oauth/authorization/redirect-uri.js';
import { s256Challenge } from '../../src/oauth/authorization/pkce.js';
import type { ApplicationRecord } from '../../src/oauth/store.js';
import { authorizeUrl, createClient, createUser, hiddenFields, locationParameters, signedIn, type UserAgent } from '../helpers/end-user.js';
import { assertionParams, clientAssertion, clientKey, jwksOf } from '../helpers/client-assertions.js';
import { backend } from '../helpers/test-database.js';
import { buildTestServer, FORM, form, type TestServer } from '../helpers/test-server.js';
import { authorizeRequests, CALLBACK, expectRedirect, ruleTests, type AuthorizeRequests } from './authorize-validation-support.js';

// Each rule of the authorization endpoint's table (reference 4.2, SPEC 3.5 and 8) by name, through HTTP: which
// error it gives, and whether that error is shown (client or redirect URI unverified) or redirected.

const CHALLENGE = s256Challenge('a45a9fea-0676-477e-95b1-a40f72ac3cfb-0123456789');
const WITH_PKCE = { code_challenge: CHALLENGE, code_challenge_method: 'S256' };
const { tested, ruleTest } = ruleTests();

function expectPage(response: LightMyRequestResponse, status: number, description: string) {
  expect(response.statusCode).toBe(status);
  expect(response.headers.location).toBeUndefined();
  expect(response.headers['content-type']).toContain('text/html');
  expect(response.body).toContain('<h1>An error has occurred</h1>');
  expect(response.body).toContain(`<pre>${description.replace(/'/g, '&#39;')}</pre>`);
}

describe(`GET /oauth/authorize validation rules, in order (${backend})`, () => {
  let server: TestServer;
  let agent: UserAgent;
  let client: ApplicationRecord;
  let publicClient: ApplicationRecord;
  let writeOnly: ApplicationRecord;

  beforeAll(async () => {
    server = await buildTestServer({ config: { optionalScopes: ['write'] } });
    await createUser(server.deps, 'alice');
    client = (await createClient(server.deps)).application;
    publicClient = (await createClient(server.deps, { confidential: false })).application;
    writeOnly = (await createClient(server.deps, { scopes: 'write' })).application;
    agent = await signedIn(server.app, 'alice');
  });
  afterAll(() => server.close());

  const get = (parameters: Record<string, string | string[]>) => agent.request({ method: 'GET', url: authorizeUrl(parameters) });
  const valid = (overrides: Record<string, string | string[]> = {}) => ({
    client_id: client.uid,
    redirect_uri: CALLBACK,
    response_type: 'code',
    ...overrides,
  });

  it('a valid request passes every rule: consent screen', async () => {
    expect((await get(valid())).statusCode).toBe(200);
  });

  ruleTest('client_id_present', 'missing or blank client_id is shown, never redirected', async () => {
    expectPage(await get({ redirect_uri: CALLBACK, response_type: 'code' }), 400, 'Missing required parameter: client_id.');
    expectPage(await get(valid({ client_id: ' ' })), 400, 'Missing required parameter: client_id.');
    expectPage(await get(valid({ client_id: [client.uid, client.uid] })), 400, 'The parameter client_id was sent more than once.');
  });

  ruleTest('client_registered', 'an unknown client is invalid_client (401), shown', async () => {
    expectPage(
      await get(valid({ client_id: 'unknown' })),
      401,
      'Client authentication failed due to unknown client, no client authentication included, or unsupported authentication method.',
    );
  });

  ruleTest('client_enabled', 'a client an admin disabled is invalid_client (401), shown with the reason, never redirected', async () => {
    const disabled = (await createClient(server.deps)).application;
    await server.deps.stores.applicationAdmin.update(disabled.id, { disabledAt: new Date() });
    const response = await get(valid({ client_id: disabled.uid }));
    expectPage(response, 401, 'This application has been disabled by the administrator of this server.');
  });

  ruleTest('redirect_uri_registered', 'a missing, repeated or unregistered redirect_uri is invalid_redirect_uri, shown', async () => {
    const description = "The requested redirect URI is malformed or doesn't match the client redirect URI.";
    expectPage(await get(valid({ redirect_uri: '' })), 400, description);
    expectPage(await get({ client_id: client.uid, response_type: 'code' }), 400, description);
    expectPage(await get(valid({ redirect_uri: [CALLBACK, CALLBACK] })), 400, description);
    expectPage(await get(valid({ redirect_uri: 'https://evil.example/callback' })), 400, description);
  });

  ruleTest(
    'pushed_when_required',
    'a client that must push (RFC 9126 section 6) sending a plain request: invalid_request, redirected',
    async () => {
      const pushing = (await createClient(server.deps, { requirePushedAuthorizationRequests: true })).application;
      const response = await get(valid({ client_id: pushing.uid, state: ['a', 'b'] }));
      expectRedirect(response, 'invalid_request', 'Pushed authorization requests are required for this client.');
    },
  );

  ruleTest('parameters_single_valued', 'a repeated parameter is invalid_request, redirected once the client is verified', async () => {
    const response = await get(valid({ state: ['a', 'b'] }));
    expectRedirect(response, 'invalid_request', 'The parameter state was sent more than once.');
    expect(locationParameters(response).has('state')).toBe(false);
  });

  ruleTest('parameters_without_nul', 'a parameter holding a NUL is invalid_request, redirected (PostgreSQL cannot store one)', async () => {
    const response = await get(valid({ nonce: 'a\u0000b' }));
    expectRedirect(response, 'invalid_request', 'The parameter nonce holds a NUL character.');
  });

  ruleTest(
    'request_object_unpacked',
    'a request object from a client without keys is request_not_supported (RFC 9101 5), redirected',
    async () => {
      expectRedirect(
        await get(valid({ request: 'eyJhbGciOiJub25lIn0.e30.' })),
        'request_not_supported',
        'A request object needs the client’s registered keys (jwks or jwks_uri) to verify it; this client has none.',
      );
    },
  );

  ruleTest('response_type_present', 'missing response_type is invalid_request, redirected with state', async () => {
    const response = await get(valid({ response_type: '', state: 'keep' }));
    expectRedirect(response, 'invalid_request', 'Missing required parameter: response_type.');
    expect(locationParameters(response).get('state')).toBe('keep');
    expect(locationParameters(response).get('iss')).toBe(server.config.baseUrl);
  });

  ruleTest('response_type_supported', 'an unknown or disabled response_type is unsupported_response_type', async () => {
    expectRedirect(
      await get(valid({ response_type: 'bogus' })),
      'unsupported_response_type',
      'The authorization server does not support this response type.',
    );
    // token is not enabled here; its errors still travel in the fragment.
    expectRedirect(
      await get(valid({ response_type: 'token' })),
      'unsupported_response_type',
      'The authorization server does not support this response type.',
      'hash',
    );
  });

  ruleTest(
    'response_type_held',
    "a response_type whose grant the client does not hold is unauthorized_client (a client's registered grant_types)",
    async () => {
      const machine = (await createClient(server.deps)).application;
      await server.deps.stores.applicationAdmin.update(machine.id, { grantTypes: ['client_credentials'] });
      expectRedirect(
        await get(valid({ client_id: machine.uid, state: 's' })),
        'unauthorized_client',
        'The client is not authorized to perform this request using this method.',
      );
    },
  );

  ruleTest('response_mode_supported', 'an unknown response_mode is unsupported_response_mode, sent in the default mode', async () => {
    expectRedirect(
      await get(valid({ response_mode: 'invalid_response_mode' })),
      'unsupported_response_mode',
      'The authorization server does not support this response mode.',
    );
  });

  ruleTest(
    'authorization_details_valid',
    'malformed authorization_details is invalid_authorization_details, redirected (RFC 9396 section 5)',
    async () => {
      expectRedirect(
        await get(valid({ authorization_details: '{not json' })),
        'invalid_authorization_details',
        'authorization_details is not valid JSON.',
      );
      expectRedirect(
        await get(valid({ authorization_details: '{"type":"payment_initiation"}' })),
        'invalid_authorization_details',
        'authorization_details must be a JSON array of objects.',
      );
    },
  );

  ruleTest('resources_valid', 'an unregistered resource is invalid_target, redirected (RFC 8707 section 2)', async () => {
    expectRedirect(
      await get(valid({ resource: 'https://unregistered.example.com' })),
      'invalid_target',
      'The resource https://unregistered.example.com is not registered.',
    );
  });

  ruleTest(
    'dpop_jkt_well_formed',
    'a dpop_jkt that is not a 43-character base64url thumbprint is invalid_request (RFC 9449 section 10)',
    async () => {
      expectRedirect(
        await get(valid({ dpop_jkt: 'not-a-thumbprint' })),
        'invalid_request',
        'The dpop_jkt parameter must be the base64url SHA-256 thumbprint of a JWK (RFC 7638).',
      );
    },
  );

  ruleTest('scope_valid', 'unknown, malformed, or (for an app whose scopes miss the defaults) empty scopes are invalid_scope', async () => {
    const description = 'The requested scope is invalid, unknown, or malformed.';
    expectRedirect(await get(valid({ scope: 'read admin' })), 'invalid_scope', description);
    expectRedirect(await get(valid({ scope: 'read\twrite' })), 'invalid_scope', description);
    expectRedirect(await get(valid({ client_id: writeOnly.uid, scope: 'read' })), 'invalid_scope', description);
    expectRedirect(await get(valid({ client_id: writeOnly.uid })), 'invalid_scope', description);
    expect((await get(valid({ client_id: writeOnly.uid, scope: 'write' }))).statusCode).toBe(200);
    expect((await get(valid({ scope: '  read   write ' }))).statusCode).toBe(200);
  });

  ruleTest(
    'code_challenge_present_when_required',
    'a public client without code_challenge is invalid_request (pkce.required public)',
    async () => {
      expectRedirect(await get(valid({ client_id: publicClient.uid })), 'invalid_request', 'Code challenge is required.');
      expect((await get(valid({ client_id: publicClient.uid, code_challenge: CHALLENGE, code_challenge_method: 'S256' }))).statusCode).toBe(
        200,
      );
      // Confidential clients may go without under "public".
      expect((await get(valid())).statusCode).toBe(200);
    },
  );

  ruleTest('code_challenge_method_present', 'a challenge without a method is invalid_request (no default to plain)', async () => {
    expectRedirect(await get(valid({ code_challenge: CHALLENGE })), 'invalid_request', 'The code_challenge_method must be S256.');
  });

  ruleTest('code_challenge_method_supported', 'plain, or an unknown method, is invalid_request while only S256 is enabled', async () => {
    expectRedirect(
      await get(valid({ code_challenge: CHALLENGE, code_challenge_method: 'plain' })),
      'invalid_request',
      'The code_challenge_method must be S256.',
    );
    expectRedirect(
      await get(valid({ code_challenge: CHALLENGE, code_challenge_method: 's256' })),
      'invalid_request',
      'The code_challenge_method must be S256.',
    );
  });

  ruleTest('code_challenge_well_formed', 'an S256 challenge that is not 43 base64url characters is invalid_request', async () => {
    const description = 'The code_challenge is not a valid RFC 7636 code challenge.';
    expectRedirect(await get(valid({ code_challenge: 'short', code_challenge_method: 'S256' })), 'invalid_request', description);
    expectRedirect(
      await get(valid({ code_challenge: `${CHALLENGE.slice(0, 42)}=`, code_challenge_method: 'S256' })),
      'invalid_request',
      description,
    );
  });

  it('the first failing rule wins: an unknown client with a bad scope is invalid_client, shown', async () => {
    expectPage(
      await get(valid({ client_id: 'unknown', scope: 'admin', response_type: 'bogus' })),
      401,
      'Client authentication failed due to unknown client, no client authentication included, or unsupported authentication method.',
    );
  });

  ruleTest(
    'response_type_known',
    'deny with a response_type other than code or token is unsupported_response_type, not a 500',
    async () => {
      const page = await get(valid());
      const deny = hiddenFields(page.body, 1);
      const response = await agent.request({
        method: 'POST',
        url: '/oauth/authorize',
        headers: FORM,
        payload: form({ ...deny, response_type: 'client_credentials' }),
      });
      expect(response.statusCode).toBe(303);
      expect(locationParameters(response).get('error')).toBe('unsupported_response_type');
    },
  );

  it('hostile input never gives a 500', async () => {
    const inputs: Array<Record<string, string | string[]>> = [
      valid({ scope: '\u0000' }),
      valid({ state: 'x'.repeat(4000) }),
      valid({ redirect_uri: 'javascript:alert(1)' }),
      valid({ redirect_uri: `${CALLBACK}\r\nX: y` }),
      valid({ client_id: "' OR 1=1 --" }),
      valid({ response_mode: ['query', 'fragment'] }),
      valid({ code_challenge: ['a', 'b'], code_challenge_method: 'S256' }),
      { 'client_id[x]': '1', redirect_uri: CALLBACK },
    ];
    for (const input of inputs) expect((await get(input)).statusCode).toBeLessThan(500);
    const json = await agent.request({
      method: 'POST',
      url: '/oauth/authorize',
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify({ client_id: { a: 1 } }),
    });
    expect(json.statusCode).toBeLessThan(500);
  });
});

describe(`validation rules under other configs (${backend})`, () => {
  let server: TestServer;
  let requests: AuthorizeRequests;

  beforeAll(async () => {
    server = await buildTestServer({
      config: { defaultScopes: [], optionalScopes: ['read'], grantFlows: ['authorization_code', 'implicit'] },
    });
    requests = await authorizeRequests(server, WITH_PKCE, { redirectUri: `${CALLBACK} ${OOB_URI}` });
  });
  afterAll(() => server.close());

  const get = (parameters: Record<string, string>) => requests.get(parameters);

  ruleTest('scope_present', 'with no default scopes, a request without scope is invalid_request', async () => {
    expectRedirect(await get({}), 'invalid_request', 'Missing required parameter: scope.');
    expectRedirect(await get({ scope: ' ' }), 'invalid_request', 'Missing required parameter: scope.');
    expect((await get({ scope: 'read' })).statusCode).toBe(200);
  });

  ruleTest(
    'dpop_jkt_for_code',
    'dpop_jkt with response_type=token is invalid_request: the token could not be bound (RFC 9449 section 10)',
    async () => {
      const dpopJkt = 'a'.repeat(43);
      expectRedirect(
        await get({ scope: 'read', response_type: 'token', dpop_jkt: dpopJkt }),
        'invalid_request',
        'The dpop_jkt parameter binds an authorization code: it cannot be used with response_type token.',
        'hash',
      );
      expect((await get({ scope: 'read', dpop_jkt: dpopJkt })).statusCode).toBe(200);
    },
  );

  ruleTest('out_of_band_code_only', 'response_type=token with the out-of-band URI is unsupported_response_type, shown', async () => {
    expectPage(
      await get({ scope: 'read', response_type: 'token', redirect_uri: OOB_URI }),
      400,
      'The authorization server does not support this response type.',
    );
  });

  ruleTest(
    'signed_when_required',
    'a client that must sign its requests (RFC 9101 10.5) sending a plain one: invalid_request',
    async () => {
      const jwks = JSON.stringify(jwksOf(await clientKey('ES256')));
      const signing = (await createClient(server.deps, { requireSignedRequestObject: true, jwks })).application;
      const response = await get({ client_id: signing.uid, scope: 'read' });
      expectRedirect(response, 'invalid_request', 'A signed request object is required for this client.');
    },
  );

  // A fapi2 client pushes every request (pushed_when_required), so its own rules are met at PAR, answered as JSON.
  const pushFapi2 = async (parameters: Record<string, string>) => {
    const key = await clientKey('ES256');
    const fields = { tokenEndpointAuthMethod: 'private_key_jwt', jwks: JSON.stringify(jwksOf(key)), profile: 'fapi2' };
    const fapi2 = (await createClient(server.deps, fields)).application;
    const assertion = await clientAssertion(fapi2.uid, key, server.config.baseUrl.replace(/\/+$/, ''));
    const request = { client_id: fapi2.uid, redirect_uri: CALLBACK, scope: 'read', ...parameters };
    const response = await server.app.inject({
      method: 'POST',
      url: '/oauth/par',
      headers: FORM,
      payload: form({ ...assertionParams(assertion), ...request }),
    });
    return { status: response.statusCode, ...response.json<object>() };
  };

  ruleTest('fapi2_code_flow_only', 'a fapi2 client asking for response_type=token (implicit enabled): unauthorized_client', async () => {
    expect(await pushFapi2({ response_type: 'token' })).toEqual({
      status: 400,
      error: 'unauthorized_client',
      error_description: 'FAPI 2.0: only response_type code is allowed for this client (profile fapi2).',
    });
  });

  ruleTest('fapi2_pkce_s256', 'a fapi2 client without an S256 code challenge: invalid_request naming FAPI 2.0', async () => {
    expect(await pushFapi2({ response_type: 'code' })).toEqual({
      status: 400,
      error: 'invalid_request',
      error_description: 'FAPI 2.0: PKCE with code_challenge_method S256 is required for this client (profile fapi2).',
    });
    expect(await pushFapi2({ response_type: 'code', ...WITH_PKCE })).toMatchObject({ status: 201 });
  });
});

describe(`pkce.required "all" with plain enabled (${backend})`, () => {
  let server: TestServer;
  let requests: AuthorizeRequests;

  beforeAll(async () => {
    server = await buildTestServer({ config: { pkce: { required: 'all', methods: ['S256', 'plain'] } } });
    requests = await authorizeRequests(server, WITH_PKCE);
  });
  afterAll(() => server.close());

  const get = (parameters: Record<string, string>) => requests.get(parameters);

  it('pkce.required "all": a confidential client needs a challenge too; plain is accepted when enabled', async () => {
    expectRedirect(await get({ code_challenge: '', code_challenge_method: '' }), 'invalid_request', 'Code challenge is required.');
    const verifier = 'a45a9fea-0676-477e-95b1-a40f72ac3cfb-0123456789';
    expect((await get({ code_challenge: verifier, code_challenge_method: 'plain' })).statusCode).toBe(200);
    expectRedirect(
      await get({ code_challenge_method: 'sha1' }),
      'invalid_request',
      'The code_challenge_method must be one of S256, plain.',
    );
  });
});

describe('the rule table', () => {
  it('every rule of the authorization and denial tables has a test by name here', () => {
    // OpenID Connect's rules are tested by name in authorize-validation-openid.test.ts.
    const openid = new Set(OPENID_RULES.map((rule) => rule.name));
    const names = new Set([...AUTHORIZATION_RULES, ...DENIAL_RULES].map((rule) => rule.name).filter((name) => !openid.has(name)));
    expect([...names].filter((name) => !tested.has(name))).toEqual([]);
  });

  it('runs in the reference order, client and redirect URI first and never redirectable', () => {
    expect(AUTHORIZATION_RULES.map((rule) => rule.name)).toEqual([
      'client_id_present',
      'client_registered',
      'client_enabled',
      'redirect_uri_registered',
      'pushed_when_required',
      'parameters_single_valued',
      'parameters_without_nul',
      'request_object_unpacked',
      'signed_when_required',
      'response_type_present',
      'scope_present',
      'response_type_supported',
      'fapi2_code_flow_only',
      'response_type_held',
      'out_of_band_code_only',
      'response_mode_supported',
      'scope_valid',
      'authorization_details_valid',
      'resources_valid',
      'dpop_jkt_well_formed',
      'dpop_jkt_for_code',
      'fapi2_pkce_s256',
      'code_challenge_present_when_required',
      'code_challenge_method_present',
      'code_challenge_method_supported',
      'code_challenge_well_formed',
      'request_uri_absent',
      'registration_absent',
      'prompt_valid',
      'max_age_valid',
      'nonce_valid',
      'claims_valid',
      'claims_acr_satisfiable',
    ]);
    expect(AUTHORIZATION_RULES.filter((rule) => !rule.redirectable).map((rule) => rule.name)).toEqual([
      'client_id_present',
      'client_registered',
      'client_enabled',
      'redirect_uri_registered',
    ]);
  });
});
