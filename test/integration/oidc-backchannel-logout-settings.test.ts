import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConfigInput } from '../../src/config/types.js';
import { backend } from '../helpers/test-database.js';
import { buildTestServer, type TestServer } from '../helpers/test-server.js';
import { openIdServer } from '../helpers/openid.js';
import {
  AdminSession,
  applicationIdFrom,
  applicationJsonApi,
  buildAdminServer,
  expectCreateRefused,
  JSON_API,
  textOf,
} from './applications-support.js';

// OpenID Connect Back-Channel Logout 1.0 section 2.2: a client's backchannel_logout_uri and
// backchannel_logout_session_required, through the admin pages and JSON API and through RFC 7591 registration, and
// section 2.1's discovery fields, which are there only while OpenID Connect is on.

const BASE = { name: 'Relying party', redirect_uri: 'https://rp.example/cb' };

// Each rule of the admin's URI as the JSON API reports it (the whole sentence).
const invalid: Array<{ rule: string; payload: Record<string, unknown>; json: string }> = [
  {
    rule: 'a fragment (section 2.2: MUST NOT include a fragment)',
    payload: { backchannel_logout_uri: 'https://rp.example/logout#now' },
    json: 'Back-channel logout URI cannot contain a fragment.',
  },
  {
    rule: 'a relative URI',
    payload: { backchannel_logout_uri: '/logout' },
    json: 'Back-channel logout URI must be an absolute URI.',
  },
  {
    rule: 'http on a host that is not a loopback IP while forceSslInRedirectUri is on',
    payload: { backchannel_logout_uri: 'http://rp.example/logout' },
    json: 'Back-channel logout URI must be an HTTPS/SSL URI.',
  },
  {
    rule: 'http for a public client (section 2.2: http only for a confidential client)',
    payload: { backchannel_logout_uri: 'http://127.0.0.1:9000/logout', confidential: false },
    json: 'Back-channel logout URI may use http only for a confidential client (Back-Channel Logout 1.0 section 2.2): use https.',
  },
  {
    rule: 'a scheme other than https or http',
    payload: { backchannel_logout_uri: 'com.example.app:/logout' },
    json: 'Back-channel logout URI must be an https URI.',
  },
  {
    rule: 'backchannel_logout_session_required without a URI',
    payload: { backchannel_logout_session_required: true },
    json: 'Back-channel logout session required needs a back-channel logout URI.',
  },
];

describe(`/oauth/applications back-channel logout settings (${backend})`, () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await buildAdminServer();
  });
  afterAll(() => server.close());

  const postJson = (payload: object) => applicationJsonApi(server.app, BASE).post(payload);
  const patchJson = (id: number, payload: object) => applicationJsonApi(server.app, BASE).patch(id, payload);

  it('JSON: create, show and PATCH round-trip backchannel_logout_uri and backchannel_logout_session_required; null clears the URI', async () => {
    const created = await postJson({});
    expect(created.statusCode).toBe(201);
    expect(created.json()).toMatchObject({ backchannel_logout_uri: null, backchannel_logout_session_required: false });
    const { id } = created.json();
    const set = await patchJson(id, { backchannel_logout_uri: 'https://rp.example/logout', backchannel_logout_session_required: true });
    expect(set.statusCode, set.body).toBe(200);
    expect(set.json()).toMatchObject({ backchannel_logout_uri: 'https://rp.example/logout', backchannel_logout_session_required: true });
    expect(await server.deps.stores.applications.findById(id)).toMatchObject({
      backchannelLogoutUri: 'https://rp.example/logout',
      backchannelLogoutSessionRequired: true,
    });
    const shown = await server.app.inject({ method: 'GET', url: `/oauth/applications/${id}`, headers: JSON_API });
    expect(shown.json()).toMatchObject({ backchannel_logout_uri: 'https://rp.example/logout', backchannel_logout_session_required: true });
    // A PATCH that leaves them out keeps them; loopback http is allowed for a confidential client.
    expect((await patchJson(id, { name: 'Renamed' })).json()).toMatchObject({ backchannel_logout_uri: 'https://rp.example/logout' });
    expect((await patchJson(id, { backchannel_logout_uri: 'http://127.0.0.1:9000/logout' })).json()).toMatchObject({
      backchannel_logout_uri: 'http://127.0.0.1:9000/logout',
    });
    const cleared = await patchJson(id, { backchannel_logout_uri: null, backchannel_logout_session_required: false });
    expect(cleared.json()).toMatchObject({ backchannel_logout_uri: null, backchannel_logout_session_required: false });
  });

  for (const { rule, payload, json } of invalid) {
    it(`JSON: ${rule} is 422 with the message that names the field, and nothing is stored`, () =>
      expectCreateRefused(server, () => postJson(payload), [json]));
  }

  it('the form offers both fields and prints a refusal beside its field; the show page prints what was saved', async () => {
    const admin = new AdminSession(server.app);
    const form = await admin.get('/oauth/applications/new');
    expect(form.body).toMatch(/<input type="text" id="application_backchannel_logout_uri" name="backchannel_logout_uri" value=""/);
    expect(form.body).toContain('<label for="application_backchannel_logout_uri">Back-channel logout URI</label>');
    expect(form.body).toMatch(/id="application_backchannel_logout_session_required" name="backchannel_logout_session_required" value="1"/);

    const refused = await admin.submit('/oauth/applications', { ...BASE, backchannel_logout_uri: 'https://rp.example/logout#x' });
    expect(refused.statusCode).toBe(422);
    expect(textOf(refused.body, 'application_backchannel_logout_uri_errors')).toBe('Cannot contain a fragment.');
    expect(refused.body).toContain('value="https://rp.example/logout#x"');

    const created = await admin.submit('/oauth/applications', {
      ...BASE,
      backchannel_logout_uri: 'https://rp.example/logout',
      backchannel_logout_session_required: ['0', '1'],
    });
    expect(created.statusCode).toBe(302);
    const page = await admin.get(`/oauth/applications/${applicationIdFrom(created.headers.location)}`);
    expect(textOf(page.body, 'backchannel_logout_uri')).toBe('https://rp.example/logout');
    expect(textOf(page.body, 'backchannel_logout_session_required')).toBe('Required');
  });
});

describe(`admin back-channel logout URIs and openid.backchannelLogout.privateAddresses (${backend})`, () => {
  it('none: an admin may not register a loopback, private or link-local host either', async () => {
    const server = await buildAdminServer({ openid: { backchannelLogout: { privateAddresses: 'none' } } } as ConfigInput);
    try {
      for (const uri of [
        'http://127.0.0.1:9000/logout',
        'https://10.1.2.3/logout',
        'https://169.254.169.254/logout',
        'https://intranet/logout',
      ])
        await expectCreateRefused(server, () => applicationJsonApi(server.app, BASE).post({ backchannel_logout_uri: uri }), [
          'Back-channel logout URI must not point at a loopback, private or link-local host.',
        ]);
    } finally {
      await server.close();
    }
  });
});

describe(`RFC 7591 registration of backchannel_logout_uri (${backend})`, () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await openIdServer({ config: { registration: { policy: 'open', perAddressPerMinute: 0 } } });
  });
  afterAll(() => server.close());

  const register = (metadata: object) =>
    server.app.inject({
      method: 'POST',
      url: '/oauth/register',
      headers: { 'content-type': 'application/json' },
      payload: { redirect_uris: ['https://rp.example/cb'], ...metadata },
    });
  const refusal = async (metadata: object) => {
    const response = await register(metadata);
    expect(response.statusCode, response.body).toBe(400);
    return response.json() as { error: string; error_description: string };
  };

  it('Back-Channel Logout 1.0 section 2.2: registered, stored and answered (RFC 7591 section 3.2.1), read back (RFC 7592)', async () => {
    const response = await register({ backchannel_logout_uri: 'https://rp.example/logout', backchannel_logout_session_required: true });
    expect(response.statusCode, response.body).toBe(201);
    const registered = response.json();
    expect(registered).toMatchObject({ backchannel_logout_uri: 'https://rp.example/logout', backchannel_logout_session_required: true });
    expect(await server.deps.stores.applications.findByUid(registered.client_id)).toMatchObject({
      backchannelLogoutUri: 'https://rp.example/logout',
      backchannelLogoutSessionRequired: true,
      registeredBy: 'dynamic',
    });
    const read = await server.app.inject({
      method: 'GET',
      url: `/oauth/register/${registered.client_id}`,
      headers: { authorization: `Bearer ${registered.registration_access_token}` },
    });
    expect(read.json()).toMatchObject({ backchannel_logout_uri: 'https://rp.example/logout', backchannel_logout_session_required: true });
    const without = (await register({})).json();
    expect(without).not.toHaveProperty('backchannel_logout_uri');
    expect(without).not.toHaveProperty('backchannel_logout_session_required');
  });

  it("a self-registered client is held to the metadata-document fetcher's address rules: no loopback, private or link-local host", async () => {
    for (const uri of [
      'https://127.0.0.1/logout',
      'https://10.0.0.8/logout',
      'https://[fe80::1]/logout',
      'https://localhost/logout',
      'https://metadata/logout',
    ]) {
      expect(await refusal({ backchannel_logout_uri: uri }), uri).toEqual({
        error: 'invalid_client_metadata',
        error_description: 'backchannel_logout_uri must not point at a loopback, private or link-local host.',
      });
    }
  });

  it('invalid_client_metadata names each rule: https, no fragment, absolute, a string, a boolean, a URI for the flag', async () => {
    const cases: Array<[object, string]> = [
      [{ backchannel_logout_uri: 'http://rp.example/logout' }, 'backchannel_logout_uri must be an HTTPS/SSL URI.'],
      [{ backchannel_logout_uri: 'https://rp.example/logout#x' }, 'backchannel_logout_uri cannot contain a fragment.'],
      [{ backchannel_logout_uri: 'logout' }, 'backchannel_logout_uri must be an absolute URI.'],
      [{ backchannel_logout_uri: 42 }, 'backchannel_logout_uri must be a string.'],
      [
        { backchannel_logout_uri: 'https://rp.example/logout', backchannel_logout_session_required: 'yes' },
        'backchannel_logout_session_required must be a boolean.',
      ],
      [{ backchannel_logout_session_required: true }, 'backchannel_logout_session_required needs a backchannel_logout_uri.'],
      [{ backchannel_logout_uri: `https://rp.example/${'a'.repeat(2000)}` }, 'backchannel_logout_uri is longer than 2000 characters.'],
    ];
    for (const [metadata, description] of cases) {
      expect(await refusal(metadata)).toEqual({ error: 'invalid_client_metadata', error_description: description });
    }
  });

  it('section 2.1: discovery says backchannel_logout_supported and backchannel_logout_session_supported', async () => {
    const metadata = (await server.app.inject({ method: 'GET', url: '/.well-known/openid-configuration' })).json();
    expect(metadata).toMatchObject({ backchannel_logout_supported: true, backchannel_logout_session_supported: true });
  });
});

describe(`Back-Channel Logout with OpenID Connect off (${backend})`, () => {
  it('discovery claims no back-channel logout, and registration ignores its metadata (RFC 7591 section 2)', async () => {
    const server = await buildTestServer({ config: { registration: { policy: 'open', perAddressPerMinute: 0 } } });
    try {
      const metadata = (await server.app.inject({ method: 'GET', url: '/.well-known/oauth-authorization-server' })).json();
      expect(metadata).not.toHaveProperty('backchannel_logout_supported');
      expect(metadata).not.toHaveProperty('backchannel_logout_session_supported');
      const response = await server.app.inject({
        method: 'POST',
        url: '/oauth/register',
        headers: { 'content-type': 'application/json' },
        payload: { redirect_uris: ['https://rp.example/cb'], backchannel_logout_uri: 'http://10.0.0.1/#x' },
      });
      expect(response.statusCode, response.body).toBe(201);
      expect(response.json()).not.toHaveProperty('backchannel_logout_uri');
      expect((await server.deps.stores.applications.findByUid(response.json().client_id))?.backchannelLogoutUri).toBeNull();
    } finally {
      await server.close();
    }
  });
});
