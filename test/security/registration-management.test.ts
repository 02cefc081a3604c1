import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { s256Challenge } from '../../src/oauth/authorization/pkce.js';
import { sha256Hex } from '../../src/oauth/secrets.js';
import { argon2Hasher } from '../../src/storage/argon2-hasher.js';
import { authorizeUrl, createUser, signedIn, type UserAgent } from '../helpers/end-user.js';
import { capturedLogLines } from '../helpers/log-lines.js';
import { bearer } from '../helpers/oauth-requests.js';
import { backend } from '../helpers/test-database.js';
import { buildTestServer, type TestServer } from '../helpers/test-server.js';
import { ADMIN, ADMIN_PASSWORD, AdminSession, JSON_API, JSON_BODY } from '../integration/applications-support.js';

// Issue 29 items 3 and 6: what a self-registered client can do to itself through RFC 7592's management endpoint.
// An update may not keep an admin's approval of what it changed (item 3), and the registration access token is
// answered on every read and update, so it is rotated there: one presented token is good for one request (item 6).

const JSON_HEADERS = { 'content-type': 'application/json' };
const CALLBACK = 'https://rp.example/cb';
const NOTICE = 'This application registered itself';
const CONFIG = {
  registration: { policy: 'open' as const, perAddressPerMinute: 0 },
  defaultScopes: ['read'],
  log: { level: 'warn' as const, format: 'json' as const },
};
const METADATA = { redirect_uris: [CALLBACK], token_endpoint_auth_method: 'none', client_name: 'Reviewed App', scope: 'read' };

type Registered = { client_id: string; registration_access_token: string } & Record<string, unknown>;

async function register(server: TestServer, payload: object = METADATA): Promise<Registered> {
  const response = await server.app.inject({ method: 'POST', url: '/oauth/register', headers: JSON_HEADERS, payload });
  expect(response.statusCode, response.body).toBe(201);
  return response.json();
}

const manage = (server: TestServer, method: 'GET' | 'PUT' | 'DELETE', clientId: string, token: string, payload?: object) =>
  server.app.inject({
    method,
    url: `/oauth/register/${encodeURIComponent(clientId)}`,
    headers: { ...(payload && JSON_HEADERS), ...bearer(token) },
    ...(payload && { payload }),
  });

describe(`issue 29 item 3: an RFC 7592 update keeps no approval of what it changed (${backend})`, () => {
  let server: TestServer;
  let alice: UserAgent;
  const log = capturedLogLines();

  beforeAll(async () => {
    const admin = { passwordHash: await argon2Hasher.hash(ADMIN_PASSWORD) };
    server = await buildTestServer({ config: { ...CONFIG, admin }, logStream: log.stream });
    await createUser(server.deps, 'alice');
    alice = await signedIn(server.app, 'alice');
  });
  afterAll(() => server.close());

  const idOf = async (clientId: string) => (await server.deps.stores.applications.findByUid(clientId))!.id;
  const approve = async (clientId: string) => {
    const id = await idOf(clientId);
    const approved = await server.app.inject({ method: 'POST', url: `/oauth/applications/${id}/approve`, headers: JSON_BODY, payload: {} });
    expect(approved.statusCode).toBe(200);
  };
  const approvedAt = async (clientId: string) => {
    const shown = await server.app.inject({ method: 'GET', url: `/oauth/applications/${await idOf(clientId)}`, headers: JSON_API });
    return shown.json().approved_at as string | null;
  };
  const consentPage = async (clientId: string) => {
    const verifier = 'a45a9fea-0676-477e-95b1-a40f72ac3cfb-0123456789';
    const response = await alice.request({
      method: 'GET',
      url: authorizeUrl({
        client_id: clientId,
        redirect_uri: CALLBACK,
        response_type: 'code',
        scope: 'read',
        code_challenge: s256Challenge(verifier),
        code_challenge_method: 'S256',
      }),
    });
    expect(response.statusCode, response.body).toBe(200);
    return response.body;
  };

  it.each([
    ['client_name', { client_name: 'Totally Legit Bank' }],
    ['redirect_uris', { redirect_uris: [CALLBACK, 'https://attacker.example/cb'] }],
    ['logo_uri', { logo_uri: 'https://cdn.rp.example/bank-logo.png' }],
    ['token_endpoint_auth_method', { token_endpoint_auth_method: 'client_secret_basic' }],
  ])(
    'issue 29 item 3 (RFC 7592 section 2.2): a PUT that changes %s withdraws the approval in the same write and logs approval_withdrawn',
    async (field, change) => {
      const client = await register(server);
      await approve(client.client_id);
      expect(await approvedAt(client.client_id)).not.toBeNull();
      expect(await consentPage(client.client_id)).not.toContain(NOTICE);

      const before = log.lines.length;
      const updated = await manage(server, 'PUT', client.client_id, client.registration_access_token, {
        ...METADATA,
        client_id: client.client_id,
        ...change,
      });
      expect(updated.statusCode, updated.body).toBe(200);
      expect(await approvedAt(client.client_id)).toBeNull();
      expect(log.lines.slice(before)).toContainEqual(
        expect.objectContaining({
          level: 40,
          event: 'client_registration.approval_withdrawn',
          clientId: client.client_id,
          changed: [field],
        }),
      );
      const page = await consentPage(client.client_id);
      expect(page).toContain(NOTICE);
      if (field === 'client_name') expect(page).toContain('Totally Legit Bank');
    },
  );

  it('issue 29 item 3 (RFC 7592 section 2.2): a PUT that changes only unreviewed fields keeps the approval, and logs nothing', async () => {
    const client = await register(server);
    await approve(client.client_id);
    const approval = await approvedAt(client.client_id);
    const before = log.lines.length;
    const updated = await manage(server, 'PUT', client.client_id, client.registration_access_token, {
      ...METADATA,
      client_id: client.client_id,
      client_uri: 'https://rp.example/',
      policy_uri: 'https://rp.example/privacy',
      tos_uri: 'https://rp.example/terms',
      contacts: ['ops@rp.example'],
      software_version: '2.0',
    });
    expect(updated.statusCode, updated.body).toBe(200);
    expect(await approvedAt(client.client_id)).toBe(approval);
    expect(log.lines.slice(before).filter((line) => String(line.event).endsWith('approval_withdrawn'))).toEqual([]);
    expect(await consentPage(client.client_id)).not.toContain(NOTICE);
  });

  it('issue 29 item 3 (RFC 7592 section 2.2): an approval from a page shown before the client changed a reviewed field is refused; from the page as it is, it holds', async () => {
    const client = await register(server);
    const id = await idOf(client.client_id);
    const admin = new AdminSession(server.app);
    const reviewedOn = (page: string) => /name="reviewed" value="([^"]+)"/.exec(page)?.[1];
    const seen = reviewedOn((await admin.get(`/oauth/applications/${id}`)).body);
    expect(seen).toEqual(expect.any(String));
    // While the admin reads the page, the client renames itself.
    const renamed = await manage(server, 'PUT', client.client_id, client.registration_access_token, {
      ...METADATA,
      client_id: client.client_id,
      client_name: 'Not What Was Reviewed',
    });
    expect(renamed.statusCode, renamed.body).toBe(200);
    const refused = await admin.submit(`/oauth/applications/${id}/approve`, { reviewed: seen! });
    expect(refused.statusCode).toBe(302);
    expect((await admin.follow(refused)).body).toContain('changed its reviewed metadata since this page was shown');
    expect(await approvedAt(client.client_id)).toBeNull();
    const current = await admin.get(`/oauth/applications/${id}`);
    expect(current.body).toContain('Not What Was Reviewed');
    const approved = await admin.submit(`/oauth/applications/${id}/approve`, { reviewed: reviewedOn(current.body)! });
    expect(approved.statusCode).toBe(302);
    expect(await approvedAt(client.client_id)).toEqual(expect.any(String));
  });

  // Two connections are needed to hold the client's change open while the approval runs: PostgreSQL only.
  it.runIf(backend === 'postgresql')(
    "an approval that runs while the client's change is being written waits for it, then is refused (409): never approved with the new metadata",
    async () => {
      const client = await register(server);
      const id = await idOf(client.client_id);
      const shown = await server.app.inject({ method: 'GET', url: `/oauth/applications/${id}`, headers: ADMIN });
      const seen = /name="reviewed" value="([^"]+)"/.exec(shown.body)![1]!;
      // The write of an RFC 7592 update (updateClient: the new reviewed field and the voided approval), not committed yet.
      const other = new pg.Client({ connectionString: server.testDatabase.url! });
      await other.connect();
      try {
        await other.query('BEGIN');
        await other.query("UPDATE oauth_applications SET name = 'Not What Was Reviewed', approved_at = NULL WHERE id = $1", [id]);
        const approval = server.app.inject({
          method: 'POST',
          url: `/oauth/applications/${id}/approve`,
          headers: JSON_BODY,
          payload: { reviewed: seen },
        });
        await sleep(300);
        await other.query('COMMIT');
        const answered = await approval;
        expect({ status: answered.statusCode, body: answered.json() }).toEqual({
          status: 409,
          body: { errors: ['The application changed its reviewed metadata since this page was shown: review it again before approving.'] },
        });
      } finally {
        await other.end();
      }
      expect(await approvedAt(client.client_id)).toBeNull();
    },
  );
});

describe(`issue 29 item 6: the registration access token is answered, and so rotated, on every read and update (${backend})`, () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await buildTestServer({ config: CONFIG });
  });
  afterAll(() => server.close());

  const storedToken = async (clientId: string) => (await server.deps.stores.applications.findByUid(clientId))!.registrationAccessToken;
  const expectInvalidToken = (response: { statusCode: number; json(): { error?: string } }) =>
    expect({ status: response.statusCode, error: response.json().error }).toEqual({ status: 401, error: 'invalid_token' });

  it('issue 29 item 6 (RFC 7592 section 3): GET and PUT answer a new registration_access_token and the presented one stops working at once', async () => {
    const client = await register(server);
    const read = await manage(server, 'GET', client.client_id, client.registration_access_token);
    expect(read.statusCode).toBe(200);
    const second = read.json().registration_access_token as string;
    expect(second).toEqual(expect.any(String));
    expect(second).not.toBe(client.registration_access_token);
    // Stored as its hash only (STYLE 9), like the first.
    expect(await storedToken(client.client_id)).toBe(sha256Hex(second));
    for (const method of ['GET', 'PUT', 'DELETE'] as const)
      expectInvalidToken(
        await manage(
          server,
          method,
          client.client_id,
          client.registration_access_token,
          method === 'PUT' ? { ...METADATA, client_id: client.client_id } : undefined,
        ),
      );

    const updated = await manage(server, 'PUT', client.client_id, second, {
      ...METADATA,
      client_id: client.client_id,
      client_name: 'Renamed',
    });
    expect(updated.statusCode).toBe(200);
    const third = updated.json().registration_access_token as string;
    expect(updated.json()).toMatchObject({ client_name: 'Renamed', registration_client_uri: client.registration_client_uri });
    expect(new Set([client.registration_access_token, second, third]).size).toBe(3);
    expectInvalidToken(await manage(server, 'GET', client.client_id, second));

    // A refused update rotates nothing: the token it presented still works.
    const refused = await manage(server, 'PUT', client.client_id, third, {
      ...METADATA,
      client_id: client.client_id,
      redirect_uris: ['http://rp.example/cb'],
    });
    expect(refused.statusCode).toBe(400);
    expect((await manage(server, 'DELETE', client.client_id, third)).statusCode).toBe(204);
  });

  it('issue 29 item 6 (RFC 7592 section 3): of concurrent requests with one registration access token, exactly one gets a new token, the others 401 invalid_token', async () => {
    const client = await register(server);
    const requests = Array.from({ length: 8 }, (_, i) =>
      i % 2 === 0
        ? manage(server, 'GET', client.client_id, client.registration_access_token)
        : manage(server, 'PUT', client.client_id, client.registration_access_token, { ...METADATA, client_id: client.client_id }),
    );
    const responses = await Promise.all(requests);
    const winners = responses.filter((response) => response.statusCode === 200);
    expect(winners).toHaveLength(1);
    for (const response of responses.filter((r) => r.statusCode !== 200)) expectInvalidToken(response);
    const issued = winners[0]!.json().registration_access_token as string;
    expect(await storedToken(client.client_id)).toBe(sha256Hex(issued));
    expect((await manage(server, 'GET', client.client_id, issued)).statusCode).toBe(200);
  });

  it('issue 29 item 6 (RFC 7592 section 3): a token rotated at one instance works at once at another that holds the client in its cache, and the old one fails there', async () => {
    const other = await buildTestServer({ config: CONFIG, testDatabase: server.testDatabase });
    try {
      const client = await register(server);
      // The other instance caches the row (with the first token's hash) as any request naming the client would.
      expect(await other.deps.stores.applications.findByUid(client.client_id)).not.toBeNull();
      const rotated = (await manage(server, 'GET', client.client_id, client.registration_access_token)).json().registration_access_token;
      expectInvalidToken(await manage(other, 'GET', client.client_id, client.registration_access_token));
      expect((await manage(other, 'GET', client.client_id, rotated)).statusCode).toBe(200);
    } finally {
      await other.close();
    }
  });
});
