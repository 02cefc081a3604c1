import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { s256Challenge } from '../../src/oauth/authorization/pkce.js';
import { createCliHarness, type CliHarness } from '../helpers/cli.js';
import { authorizeUrl, createUser, heldErrorParameters, signedIn } from '../helpers/end-user.js';
import { backend } from '../helpers/test-database.js';
import type { TestServer } from '../helpers/test-server.js';
import { AdminSession, applicationIdFrom, buildAdminServer, JSON_BODY, textOf } from './applications-support.js';

// Issue 36 item 1: RFC 9126 section 6's require_pushed_authorization_requests per client, where clients are made: the
// RFC 7591 registration (and its RFC 7592 reads), the admin JSON API and form, and `apps` in the CLI. What it does at
// /oauth/authorize is par.test.ts's.

const CALLBACK = 'https://rp.example/cb';
const BASE = { name: 'PAR client', redirect_uri: CALLBACK };
const JSON_HEADERS = { 'content-type': 'application/json' };

describe(`require_pushed_authorization_requests per client (${backend})`, () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await buildAdminServer({ registration: { policy: 'open', perAddressPerMinute: 0 } });
    await createUser(server.deps, 'alice');
  });
  afterAll(() => server.close());

  const stored = async (uid: string) => (await server.deps.stores.applications.findByUid(uid))!.requirePushedAuthorizationRequests;
  const register = (payload: object) =>
    server.app.inject({
      method: 'POST',
      url: '/oauth/register',
      headers: JSON_HEADERS,
      payload: { redirect_uris: [CALLBACK], ...payload },
    });

  it('RFC 7591: registered true, it is stored, answered, and a plain authorization request of that client is refused', async () => {
    const response = await register({ require_pushed_authorization_requests: true, token_endpoint_auth_method: 'none' });
    expect(response.statusCode, response.body).toBe(201);
    const client = response.json<{ client_id: string; require_pushed_authorization_requests: boolean }>();
    expect(client.require_pushed_authorization_requests).toBe(true);
    expect(await stored(client.client_id)).toBe(true);
    const alice = await signedIn(server.app, 'alice');
    const plain = await alice.request({
      method: 'GET',
      url: authorizeUrl({
        client_id: client.client_id,
        redirect_uri: CALLBACK,
        response_type: 'code',
        scope: 'read',
        code_challenge: s256Challenge('b'.repeat(43)),
        code_challenge_method: 'S256',
      }),
    });
    // Self-registered, unapproved: the error is handed over on a page (RFC 9700 section 4.11.2).
    expect(heldErrorParameters(plain).get('error')).toBe('invalid_request');

    const unset = await register({});
    expect(unset.json()).not.toHaveProperty('require_pushed_authorization_requests');
    expect(await stored(unset.json().client_id)).toBe(false);
    const malformed = await register({ require_pushed_authorization_requests: 'yes' });
    expect(malformed.statusCode).toBe(400);
    expect(malformed.json()).toMatchObject({
      error: 'invalid_client_metadata',
      error_description: 'require_pushed_authorization_requests must be a boolean.',
    });
  });

  it('the JSON API: false by default, set on create, turned off by PATCH', async () => {
    const plain = await server.app.inject({ method: 'POST', url: '/oauth/applications', headers: JSON_BODY, payload: BASE });
    expect(plain.json().require_pushed_authorization_requests).toBe(false);
    const created = await server.app.inject({
      method: 'POST',
      url: '/oauth/applications',
      headers: JSON_BODY,
      payload: { ...BASE, require_pushed_authorization_requests: true },
    });
    expect(created.json()).toMatchObject({ require_pushed_authorization_requests: true });
    const off = await server.app.inject({
      method: 'PATCH',
      url: `/oauth/applications/${created.json().id}`,
      headers: JSON_BODY,
      payload: { require_pushed_authorization_requests: false },
    });
    expect(off.json()).toMatchObject({ require_pushed_authorization_requests: false });
    expect(await stored(created.json().uid)).toBe(false);
  });

  it('the admin form: a checkbox with its hidden "0"; checked, it is stored and shown', async () => {
    const admin = new AdminSession(server.app);
    const page = await admin.get('/oauth/applications/new');
    expect(page.body).toContain('name="require_pushed_authorization_requests" value="1"');
    const created = await admin.submit('/oauth/applications', {
      ...BASE,
      confidential: ['0', '1'],
      require_pushed_authorization_requests: ['0', '1'],
    });
    expect(created.statusCode).toBe(302);
    const id = applicationIdFrom(created.headers.location);
    expect((await server.deps.stores.applications.findById(id))!.requirePushedAuthorizationRequests).toBe(true);
    expect(textOf((await admin.follow(created)).body, 'require_pushed_authorization_requests')).toBe('Required');
  });
});

// Each CLI call opens and closes the database, as an operator's would: slow on a busy machine.
describe(`oauth-service apps --[no-]require-par (${backend})`, { timeout: 120_000 }, () => {
  let cli: CliHarness;
  beforeAll(async () => {
    cli = await createCliHarness();
  });
  afterAll(() => cli.close());

  it('apps create --require-par sets it, apps show prints it, apps update --no-require-par clears it', async () => {
    const created = JSON.parse(
      (await cli.run(['apps', 'create', '--name', 'Pushed', '--redirect-uri', CALLBACK, '--require-par', '--json'])).stdout,
    );
    expect(created.require_pushed_authorization_requests).toBe(true);
    expect((await cli.run(['apps', 'show', created.uid])).stdout).toContain(
      '  PAR:            required (pushed authorization requests only, RFC 9126)\n',
    );
    const updated = JSON.parse((await cli.run(['apps', 'update', created.uid, '--no-require-par', '--json'])).stdout);
    expect(updated.require_pushed_authorization_requests).toBe(false);
  });
});

describe(`a server where every client must push its requests (pushedAuthorizationRequests.required, ${backend})`, () => {
  it('apps show and the admin page say PAR is required for a client that does not ask for it itself', async () => {
    const cli = await createCliHarness({ pushedAuthorizationRequests: { required: true } });
    try {
      const created = await cli.json(['apps', 'create', '--name', 'Every client pushes', '--redirect-uri', CALLBACK]);
      expect(created.require_pushed_authorization_requests).toBe(false);
      expect(await cli.stdout(['apps', 'show', created.uid])).toContain(
        '  PAR:            required (pushedAuthorizationRequests.required: every client pushes its requests, RFC 9126)\n',
      );
    } finally {
      await cli.close();
    }
    const server = await buildAdminServer({ pushedAuthorizationRequests: { required: true } });
    try {
      const admin = new AdminSession(server.app);
      const created = await admin.submit('/oauth/applications', { ...BASE, confidential: ['0', '1'] });
      expect(textOf((await admin.follow(created)).body, 'require_pushed_authorization_requests')).toBe(
        'Required (pushedAuthorizationRequests.required: every client)',
      );
    } finally {
      await server.close();
    }
  });
});
