import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCliHarness, type CliHarness } from '../helpers/cli.js';
import { DEVICE_CODE_GRANT, DEVICE_FLOW_CONFIG } from '../helpers/device-flow.js';
import { backend } from '../helpers/test-database.js';
import { postForm } from '../helpers/oauth-requests.js';
import { buildTestServer, type TestServer } from '../helpers/test-server.js';
import { ADMIN, applicationJsonApi, buildAdminServer, textOf } from './applications-support.js';

// Issue 34 item 2: the device grant is opt-in per client; an admin-made application names it in its grant types
// (the CLI's --grant-types, the admin form's and JSON API's grant_types).

describe(`oauth-service apps --grant-types (${backend})`, { timeout: 120_000 }, () => {
  let cli: CliHarness;
  beforeAll(async () => {
    cli = await createCliHarness(DEVICE_FLOW_CONFIG);
  });
  afterAll(() => cli.close());

  it('create names the device grant, update refuses a grant the server does not enable, "" returns to every grant', async () => {
    const grants = `${DEVICE_CODE_GRANT} refresh_token`;
    const create = ['apps', 'create', '--name', 'TV', '--public', '--redirect-uri', 'https://tv.example/cb', '--grant-types', grants];
    const created = await cli.run([...create, '--json']);
    expect(created.code).toBe(0);
    const { uid } = JSON.parse(created.stdout) as { uid: string };
    expect((await cli.run(['apps', 'show', uid])).stdout).toContain(`  grant types:    ${grants}\n`);

    const refused = await cli.run(['apps', 'update', uid, '--grant-types', 'password']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(
      `Grant types must be ones this server enables (authorization_code, refresh_token, ${DEVICE_CODE_GRANT}), not "password".`,
    );

    const cleared = await cli.run(['apps', 'update', uid, '--grant-types', '']);
    expect(cleared.code).toBe(0);
    expect(cleared.stdout).toContain('  grant types:    (every grant the server enables but the device grant)\n');
  });
});

describe(`/oauth/applications grant_types (${backend})`, () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await buildAdminServer(DEVICE_FLOW_CONFIG);
  });
  afterAll(() => server.close());

  it('the admin JSON API sets the device grant, and refuses one the server does not enable (422)', async () => {
    const api = applicationJsonApi(server.app, { redirect_uri: 'https://tv.example/cb', confidential: false });
    const created = await api.post({ name: 'TV', grant_types: [DEVICE_CODE_GRANT] });
    expect(created.statusCode).toBe(201);
    const id = created.json<{ id: number }>().id;
    expect((await server.deps.stores.applications.findById(id))!.grantTypes).toEqual([DEVICE_CODE_GRANT]);
    // The show page says it, and offers no Authorize (the code flow) to a client that may not use it.
    const page = async () => (await server.app.inject({ method: 'GET', url: `/oauth/applications/${id}`, headers: ADMIN })).body;
    expect(textOf(await page(), 'grant_types')).toBe(DEVICE_CODE_GRANT);
    expect(await page()).not.toContain('>Authorize</a>');
    expect((await api.patch(id, { grant_types: '' })).statusCode).toBe(200);
    expect(textOf(await page(), 'grant_types')).toBe('Every grant the server enables but the device grant');
    expect(await page()).toContain('>Authorize</a>');
    const refused = await api.patch(id, { grant_types: 'client_credentials' });
    expect(refused.statusCode).toBe(422);
    expect(refused.json()).toEqual({
      errors: [
        `Grant types must be ones this server enables (authorization_code, refresh_token, ${DEVICE_CODE_GRANT}), not "client_credentials".`,
      ],
    });
  });
});

describe(`RFC 7591 registration of the device grant (${backend})`, () => {
  let server: TestServer;
  beforeAll(async () => {
    const registration = {
      policy: 'open' as const,
      perAddressPerMinute: 0,
      allowedGrantTypes: [DEVICE_CODE_GRANT, 'refresh_token' as const],
    };
    server = await buildTestServer({ config: { ...DEVICE_FLOW_CONFIG, registration } });
  });
  afterAll(() => server.close());

  const register = (payload: object) =>
    server.app.inject({ method: 'POST', url: '/oauth/register', headers: { 'content-type': 'application/json' }, payload });

  it('a public client registers the device grant with refresh_token and no redirect URI, and starts a device authorization', async () => {
    const response = await register({
      client_name: 'TV',
      grant_types: [DEVICE_CODE_GRANT, 'refresh_token'],
      token_endpoint_auth_method: 'none',
    });
    expect(response.statusCode).toBe(201);
    const { client_id: clientId, grant_types: grantTypes } = response.json<{ client_id: string; grant_types: string[] }>();
    expect(grantTypes).toEqual([DEVICE_CODE_GRANT, 'refresh_token']);
    const started = await postForm(server.app, '/oauth/device_authorization', { client_id: clientId });
    expect(started.statusCode).toBe(200);
  });

  it('a grant the registration policy does not allow is invalid_client_metadata', async () => {
    const response = await register({ client_name: 'TV', grant_types: ['authorization_code'], redirect_uris: ['https://tv.example/cb'] });
    expect(response.json()).toMatchObject({ error: 'invalid_client_metadata' });
  });
});
