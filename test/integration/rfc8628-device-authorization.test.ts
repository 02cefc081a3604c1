import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanUpStaleRecords } from '../../src/oauth/cleanup/cleanup.js';
import { sha256Hex } from '../../src/oauth/secrets.js';
import {
  DEVICE_CODE_GRANT,
  DEVICE_FLOW_CONFIG,
  decideAtDevicePage,
  deviceAuthorization,
  deviceClient,
  pollDevice,
  startDeviceAuthorization,
} from '../helpers/device-flow.js';
import { assertionParams, clientAssertion, clientKey, jwksOf, privateKeyJwtClient } from '../helpers/client-assertions.js';
import { dpopKey, dpopProof } from '../helpers/dpop.js';
import { basic, introspectRequest } from '../helpers/oauth-requests.js';
import { countRows, createUser, signedIn, type UserAgent } from '../helpers/end-user.js';
import { createClient, type TestClient } from '../helpers/factories.js';
import { backend } from '../helpers/test-database.js';
import { buildTestServer, type TestServer } from '../helpers/test-server.js';

// RFC 8628 (issue 34 item 2): the device authorization endpoint and the device_code grant's answers, each refusal
// with the RFC's error code and nothing stored for it.

describe(`RFC 8628 device authorization grant (${backend})`, () => {
  let server: TestServer;
  let client: TestClient;
  let alice: UserAgent;
  beforeAll(async () => {
    server = await buildTestServer({ config: DEVICE_FLOW_CONFIG });
    client = await deviceClient(server.deps);
    await createUser(server.deps, 'alice');
    alice = await signedIn(server.app, 'alice');
  });
  afterAll(() => server.close());

  const error = (response: { statusCode: number; json: () => unknown }) => ({
    status: response.statusCode,
    ...(response.json() as object),
  });

  it('POST /oauth/device_authorization answers the section 3.2 fields and stores both codes hashed', async () => {
    const started = await deviceAuthorization(server.app, client, { scope: 'read write' });
    expect(started).toEqual({
      device_code: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      user_code: expect.stringMatching(/^[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}$/),
      verification_uri: `${server.config.baseUrl}/device`,
      verification_uri_complete: `${server.config.baseUrl}/device?user_code=${started.user_code}`,
      expires_in: 600,
      interval: 5,
    });
    const rows = await server.app.database.sql.query<{ device_code: string; user_code: string; scopes: string }>(
      'SELECT device_code, user_code, scopes FROM oauth_device_authorizations WHERE device_code = $1',
      [sha256Hex(started.device_code)],
    );
    expect(rows).toEqual([
      { device_code: sha256Hex(started.device_code), user_code: sha256Hex(started.user_code.replace('-', '')), scopes: 'read write' },
    ]);
  });

  it('refuses a client whose grant types do not name the device grant (unauthorized_client), storing nothing', async () => {
    const before = await countRows(server, 'oauth_device_authorizations');
    const adminDefault = await createClient(server.deps, { confidential: false });
    const codeOnly = await deviceClient(server.deps, { grantTypes: ['authorization_code'] });
    for (const other of [adminDefault, codeOnly]) {
      const response = await startDeviceAuthorization(server.app, other);
      expect(error(response)).toMatchObject({ status: 400, error: 'unauthorized_client' });
    }
    expect(await countRows(server, 'oauth_device_authorizations')).toBe(before);
  });

  it('refuses an unknown client (invalid_client) and a scope the client does not hold (invalid_scope), storing nothing', async () => {
    const before = await countRows(server, 'oauth_device_authorizations');
    const unknown = await startDeviceAuthorization(server.app, { ...client, uid: 'nobody' });
    expect(error(unknown)).toMatchObject({ status: 401, error: 'invalid_client' });
    const wider = await startDeviceAuthorization(server.app, client, { scope: 'admin' });
    expect(error(wider)).toMatchObject({ status: 400, error: 'invalid_scope' });
    expect(await countRows(server, 'oauth_device_authorizations')).toBe(before);
  });

  it('polling answers authorization_pending, then slow_down when too soon, the interval growing by 5 s each time', async () => {
    const { device_code: deviceCode } = await deviceAuthorization(server.app, client);
    expect((await pollDevice(server.app, client, deviceCode)).json()).toMatchObject({ error: 'authorization_pending' });
    const tooSoon = await pollDevice(server.app, client, deviceCode);
    expect(error(tooSoon)).toMatchObject({ status: 400, error: 'slow_down' });
    expect(tooSoon.json<{ error_description: string }>().error_description).toContain('wait 10 seconds');
    // 10 s now apply: 6 s later is still too soon (and makes it 15), 15 s after that is in time.
    server.clock.advance(6);
    expect((await pollDevice(server.app, client, deviceCode)).json()).toMatchObject({ error: 'slow_down' });
    server.clock.advance(15);
    expect((await pollDevice(server.app, client, deviceCode)).json()).toMatchObject({ error: 'authorization_pending' });
    const [row] = await server.app.database.sql.query<{ interval: number }>(
      'SELECT interval FROM oauth_device_authorizations WHERE device_code = $1',
      [sha256Hex(deviceCode)],
    );
    expect(row!.interval).toBe(15);
    expect(await countRows(server, 'oauth_access_tokens')).toBe(0);
  });

  it('slow_down holds on every instance: a poll on a second instance right after one on the first slows down', async () => {
    const other = await buildTestServer({ config: DEVICE_FLOW_CONFIG, testDatabase: server.testDatabase });
    // The same time on both (the tests above moved the first one's clock).
    other.clock.advance((server.clock.now.getTime() - other.clock.now.getTime()) / 1000);
    try {
      const { device_code: deviceCode } = await deviceAuthorization(server.app, client);
      expect((await pollDevice(server.app, client, deviceCode)).json()).toMatchObject({ error: 'authorization_pending' });
      expect((await pollDevice(other.app, client, deviceCode)).json()).toMatchObject({ error: 'slow_down' });
      // Two first polls at once on the two instances (on PostgreSQL, two connections): exactly one is in time.
      const { device_code: fresh } = await deviceAuthorization(server.app, client);
      const answers = await Promise.all([server.app, other.app].map(async (app) => (await pollDevice(app, client, fresh)).json().error));
      expect(answers.sort()).toEqual(['authorization_pending', 'slow_down']);
    } finally {
      await other.close();
    }
  });

  it('approved: a token response with a refresh token; the device code is single use (invalid_grant on replay)', async () => {
    const started = await deviceAuthorization(server.app, client, { scope: 'read' });
    expect((await decideAtDevicePage(alice, started.user_code, true)).statusCode).toBe(200);
    const issued = await pollDevice(server.app, client, started.device_code);
    expect(issued.statusCode).toBe(200);
    expect(issued.json()).toMatchObject({ token_type: 'Bearer', scope: 'read', refresh_token: expect.any(String) });
    const tokens = await countRows(server, 'oauth_access_tokens');
    const replay = await pollDevice(server.app, client, started.device_code);
    expect(error(replay)).toMatchObject({ status: 400, error: 'invalid_grant' });
    expect(await countRows(server, 'oauth_access_tokens')).toBe(tokens);
  });

  it('takes resource repeated (RFC 8707 section 2): the approved token is for both APIs; a repeated scope is refused by name', async () => {
    const common = { name: '', tokenFormat: 'opaque' as const, accessTokenLifetime: null, scopes: ['read'], serverClientId: null };
    const apis = ['https://device-api-a.example/', 'https://device-api-b.example/'];
    for (const uri of apis) await server.deps.stores.resources.create({ ...common, uri });
    const started = await deviceAuthorization(server.app, client, { scope: 'read', resource: apis });
    expect((await decideAtDevicePage(alice, started.user_code, true)).statusCode).toBe(200);
    const issued = await pollDevice(server.app, client, started.device_code);
    expect(issued.statusCode).toBe(200);
    const rows = await server.app.database.sql.query<{ audience: string }>('SELECT audience FROM oauth_access_tokens WHERE token = $1', [
      sha256Hex(issued.json<{ access_token: string }>().access_token),
    ]);
    expect(rows).toEqual([{ audience: apis.join(' ') }]);
    const twice = await startDeviceAuthorization(server.app, client, { scope: ['read', 'write'] });
    expect(error(twice)).toMatchObject({ status: 400, error: 'invalid_request', error_description: expect.stringContaining('scope') });
  });

  it("the token carries the approver's sign-in: auth_time, acr and amr at introspection (issue 35)", async () => {
    const confidential = await deviceClient(server.deps, { confidential: true });
    const started = await deviceAuthorization(server.app, confidential, { scope: 'read' });
    await decideAtDevicePage(alice, started.user_code, true);
    const { access_token: token } = (await pollDevice(server.app, confidential, started.device_code)).json();
    const introspected = (await introspectRequest(server.app, { token }, basic(confidential.uid, confidential.secret!))).json();
    expect(introspected).toMatchObject({ active: true, amr: ['pwd'], acr: 'urn:oauth-service:acr:pwd', auth_time: expect.any(Number) });
    // Recorded at the approval and copied to the token, not inferred from auth_time (as for rows older than the columns).
    const rows = await server.app.database.sql.query<{ amr: string; acr: string }>(
      `SELECT d.amr, d.acr FROM oauth_device_authorizations d WHERE d.device_code = $1
       UNION ALL SELECT t.amr, t.acr FROM oauth_access_tokens t WHERE t.token = $2`,
      [sha256Hex(started.device_code), sha256Hex(token)],
    );
    expect(rows).toEqual([
      { amr: 'pwd', acr: 'urn:oauth-service:acr:pwd' },
      { amr: 'pwd', acr: 'urn:oauth-service:acr:pwd' },
    ]);
  });

  it('denied: access_denied, and no token', async () => {
    const tokens = await countRows(server, 'oauth_access_tokens');
    const started = await deviceAuthorization(server.app, client);
    expect((await decideAtDevicePage(alice, started.user_code, false)).body).toContain('Access denied');
    const polled = await pollDevice(server.app, client, started.device_code);
    expect(error(polled)).toMatchObject({ status: 400, error: 'access_denied' });
    expect(await countRows(server, 'oauth_access_tokens')).toBe(tokens);
  });

  it('a user disabled after approving gets no token (invalid_grant)', async () => {
    const bob = await createUser(server.deps, 'bob');
    const started = await deviceAuthorization(server.app, client);
    await decideAtDevicePage(await signedIn(server.app, 'bob'), started.user_code, true);
    await server.deps.stores.userAdmin.setDisabledAt(bob.id, server.clock.now);
    const tokens = await countRows(server, 'oauth_access_tokens');
    expect(error(await pollDevice(server.app, client, started.device_code))).toMatchObject({ status: 400, error: 'invalid_grant' });
    expect(await countRows(server, 'oauth_access_tokens')).toBe(tokens);
  });

  it('POST /oauth/device_authorization takes a form only: JSON is 415', async () => {
    const response = await server.app.inject({
      method: 'POST',
      url: '/oauth/device_authorization',
      headers: { 'content-type': 'application/json' },
      payload: { client_id: client.uid },
    });
    expect(response.statusCode).toBe(415);
  });

  it('expired: expired_token once expires_in has passed, approved or not', async () => {
    const started = await deviceAuthorization(server.app, client);
    server.clock.advance(601);
    expect(error(await pollDevice(server.app, client, started.device_code))).toMatchObject({ status: 400, error: 'expired_token' });
  });

  it("another client's device code, or a made-up one, is invalid_grant", async () => {
    const started = await deviceAuthorization(server.app, client);
    const other = await deviceClient(server.deps);
    expect(error(await pollDevice(server.app, other, started.device_code))).toMatchObject({ status: 400, error: 'invalid_grant' });
    expect(error(await pollDevice(server.app, client, 'made-up'))).toMatchObject({ status: 400, error: 'invalid_grant' });
  });

  it('a client without the grant type polling is unauthorized_client', async () => {
    const started = await deviceAuthorization(server.app, client);
    const codeOnly = await deviceClient(server.deps, { grantTypes: ['authorization_code'] });
    expect(error(await pollDevice(server.app, codeOnly, started.device_code))).toMatchObject({ status: 400, error: 'unauthorized_client' });
  });

  it('DPoP: a proof at the token request binds the device token to its key', async () => {
    const started = await deviceAuthorization(server.app, client);
    await decideAtDevicePage(alice, started.user_code, true);
    const key = await dpopKey();
    // The server's clock was moved by the tests above: the proof's iat follows it.
    const iat = Math.floor(server.clock.now.getTime() / 1000);
    const proof = await dpopProof(key, { htu: `${server.config.baseUrl}/oauth/token`, iat });
    const issued = await pollDevice(server.app, client, started.device_code, { dpop: proof });
    expect(issued.statusCode).toBe(200);
    expect(issued.json()).toMatchObject({ token_type: 'DPoP' });
  });

  it('DPoP: a client whose tokens must be DPoP-bound is refused a poll without a proof at once, not only once approved', async () => {
    const bound = await deviceClient(server.deps);
    await server.deps.stores.applicationAdmin.update(bound.application.id, { dpopBoundAccessTokens: true });
    const started = await deviceAuthorization(server.app, bound);
    const refusal = { status: 400, error: 'invalid_dpop_proof' };
    expect(error(await pollDevice(server.app, bound, started.device_code))).toMatchObject(refusal);
    await decideAtDevicePage(alice, started.user_code, true);
    expect(error(await pollDevice(server.app, bound, started.device_code))).toMatchObject(refusal);
    const iat = Math.floor(server.clock.now.getTime() / 1000);
    const proof = await dpopProof(await dpopKey(), { htu: `${server.config.baseUrl}/oauth/token`, iat });
    const issued = await pollDevice(server.app, bound, started.device_code, { dpop: proof });
    expect(issued.statusCode, issued.body).toBe(200);
    expect(issued.json()).toMatchObject({ token_type: 'DPoP' });
  });

  it('a private_key_jwt client may name this endpoint as its assertion aud, as at revocation and introspection', async () => {
    // A server of its own: the other tests move this file's server's clock, and the assertions are signed at the real time.
    const own = await buildTestServer({ config: DEVICE_FLOW_CONFIG, testDatabase: server.testDatabase });
    const key = await clientKey();
    const keyed = await privateKeyJwtClient(own.deps, { jwks: jwksOf(key) });
    await own.deps.stores.applicationAdmin.update(keyed.application.id, { grantTypes: [DEVICE_CODE_GRANT] });
    const issuer = own.config.baseUrl.replace(/\/+$/, '');
    for (const aud of [issuer, `${issuer}/oauth/device_authorization`]) {
      const response = await own.app.inject({
        method: 'POST',
        url: '/oauth/device_authorization',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: new URLSearchParams({
          client_id: keyed.uid,
          ...assertionParams(await clientAssertion(keyed.uid, key, issuer, { aud })),
        }).toString(),
      });
      expect(response.statusCode, `${aud}: ${response.body}`).toBe(200);
    }
    await own.close();
  });

  it('discovery names the device authorization endpoint and the grant', async () => {
    const metadata = (await server.app.inject({ method: 'GET', url: '/.well-known/oauth-authorization-server' })).json();
    expect(metadata).toMatchObject({
      device_authorization_endpoint: `${server.config.baseUrl}/oauth/device_authorization`,
      grant_types_supported: expect.arrayContaining([DEVICE_CODE_GRANT]),
    });
  });

  // Last: it moves the clock past every device authorization of this file.
  it('tokens cleanup deletes a device authorization expired longer than authorizationCodeExpiresIn; its poll is then invalid_grant', async () => {
    const started = await deviceAuthorization(server.app, client);
    server.clock.advance(600 + 600 + 1);
    const { deleted } = await cleanUpStaleRecords(server.deps, server.clock.now, { batchSize: 100 });
    expect(deleted.expired_device_codes).toBeGreaterThan(0);
    expect(error(await pollDevice(server.app, client, started.device_code))).toMatchObject({ status: 400, error: 'invalid_grant' });
  });
});
