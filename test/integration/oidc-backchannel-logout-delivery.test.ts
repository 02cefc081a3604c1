import { randomBytes } from 'node:crypto';
import { createLocalJWKSet } from 'jose';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../scripts/lib/ports.js';
import { sidFor } from '../../src/oauth/openid/client-sid.js';
import { backchannelReceiver, validLogoutToken, type BackchannelReceiver } from '../helpers/backchannel-receiver.js';
import { backchannelServer, deliveryRows, eventually, relyingParty, signedInAt } from '../helpers/backchannel-logout.js';
import { createUser } from '../helpers/end-user.js';
import { capturedLogLines } from '../helpers/log-lines.js';
import { scrapeMetrics } from '../helpers/metrics-scrape.js';
import { jwksOf } from '../helpers/openid.js';
import { backend, createTestDatabase, type TestDatabase } from '../helpers/test-database.js';
import type { TestServer } from '../helpers/test-server.js';

// OpenID Connect Back-Channel Logout 1.0 section 2.5, how this server delivers: queued in oauth_logout_deliveries by the
// logout, POSTed afterwards by the service's worker, with a bounded timeout and retries that outlive the process.

const logOut = (agent: Awaited<ReturnType<typeof signedInAt>>['agent']) => agent.post('/logout', {}, '/logout');

describe(`Back-Channel Logout 1.0 section 2.5: delivery (${backend})`, () => {
  const servers: TestServer[] = [];
  const receivers: BackchannelReceiver[] = [];
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((server) => server.close()));
    await Promise.all(receivers.splice(0).map((receiver) => receiver.close()));
  });
  afterAll(() => database.drop());

  // Servers on one database share its signing keys, so they share the key that encrypts them.
  const env = { KEY_ENCRYPTION_KEY: randomBytes(32).toString('base64') };
  const server = async (...args: Parameters<typeof backchannelServer>) => {
    const built = await backchannelServer(args[0], { testDatabase: database, env, ...args[1] });
    servers.push(built);
    return built;
  };
  const receiver = async (port?: number) => {
    const made = await backchannelReceiver(port);
    receivers.push(made);
    return made;
  };
  let users = 0;
  const user = (op: TestServer) => createUser(op.deps, `bcl-user-${++users}`);

  it('the logout page answers while the relying party has not answered yet: delivery happens after the page', async () => {
    const op = await server();
    const rp = await receiver();
    const client = await relyingParty(op, rp.url);
    const alice = await user(op);
    const { agent } = await signedInAt(op, alice.username, client);
    rp.hold();
    const page = await logOut(agent);
    expect(page.statusCode).toBe(303);
    expect(page.headers.location).toBe('/login');
    // The relying party holds its answer: the page above did not wait for it.
    const request = await rp.next();
    expect(request.logoutToken).toEqual(expect.any(String));
    const [pending] = (await deliveryRows(op)).filter((row) => row.applicationId === client.application.id);
    expect(pending).toMatchObject({ deliveredAt: null, failedAt: null, attempts: 1 });
    rp.release();
    const delivered = await eventually(async () => {
      const [row] = (await deliveryRows(op)).filter((candidate) => candidate.applicationId === client.application.id);
      return row?.deliveredAt ? row : undefined;
    });
    expect(delivered).toMatchObject({ attempts: 1, lastError: null, subject: alice.subject });
  });

  it('a delivery to a relying party that is down is retried after a restart, by the next server on the database', async () => {
    const port = await freePort();
    const first = await server({ retryAfterSeconds: 30 });
    const client = await relyingParty(first, `http://127.0.0.1:${port}/backchannel-logout`);
    const bob = await user(first);
    const { agent } = await signedInAt(first, bob.username, client);
    expect((await logOut(agent)).statusCode).toBe(303);
    const failed = await eventually(async () => {
      const row = (await deliveryRows(first)).find((candidate) => candidate.applicationId === client.application.id);
      return row?.lastError ? row : undefined;
    });
    expect(failed).toMatchObject({ attempts: 1, deliveredAt: null, failedAt: null });
    expect(failed.lastError).toMatch(/connection failed \(ECONNREFUSED\)/);
    // The next attempt is a retryAfterSeconds wait away, in the table: nothing of it lives in the process.
    expect(failed.nextAttemptAt.getTime() - Date.now()).toBeGreaterThan(20_000);
    await first.close();
    servers.splice(servers.indexOf(first), 1);

    const rp = await receiver(port);
    const second = await server({ retryAfterSeconds: 30 });
    second.clock.advance(31);
    await second.app.ready();
    const request = await rp.next();
    const claims = await validLogoutToken(request.logoutToken!, {
      keys: createLocalJWKSet(await jwksOf(second)),
      issuer: second.config.baseUrl.replace(/\/+$/, ''),
      clientId: client.application.uid,
    });
    expect(claims.sub).toBe(bob.subject);
    const delivered = await eventually(async () => {
      const row = (await deliveryRows(second)).find((candidate) => candidate.id === failed.id);
      return row?.deliveredAt ? row : undefined;
    });
    expect(delivered.attempts).toBe(2);
  });

  it('an answer of 400 (the relying party refused the token) is not retried; 503 is, after retryAfterSeconds, and maxAttempts ends it', async () => {
    const log = capturedLogLines();
    const op = await server(
      { retryAfterSeconds: 60, maxAttempts: 2 },
      { logStream: log.stream, config: { log: { level: 'info', format: 'json' } } },
    );
    const rp = await receiver();
    const client = await relyingParty(op, rp.url);
    const carol = await user(op);
    const row = async () => (await deliveryRows(op)).filter((candidate) => candidate.applicationId === client.application.id).at(-1);

    rp.answer(400);
    await logOut((await signedInAt(op, carol.username, client)).agent);
    await rp.next();
    const refused = await eventually(async () => ((await row())?.failedAt ? row() : undefined));
    expect(refused).toMatchObject({ attempts: 1, lastError: 'the client answered status 400', deliveredAt: null });

    rp.answer(503);
    await logOut((await signedInAt(op, carol.username, client)).agent);
    await rp.next();
    const retrying = await eventually(async () => ((await row())?.lastError ? row() : undefined));
    expect(retrying).toMatchObject({ attempts: 1, failedAt: null, lastError: 'the client answered status 503' });
    const waitSeconds = (retrying!.nextAttemptAt.getTime() - op.clock.now.getTime()) / 1000;
    expect(waitSeconds).toBeGreaterThan(50);
    expect(waitSeconds).toBeLessThanOrEqual(61);

    op.clock.advance(61);
    await rp.next(10_000);
    const givenUp = await eventually(async () => ((await row())?.failedAt ? row() : undefined));
    expect(givenUp).toMatchObject({
      attempts: 2,
      deliveredAt: null,
      lastError: 'the client answered status 503; given up after 2 attempts',
    });

    const events = log.lines.filter((line) => String(line.event).startsWith('backchannel_logout.')).map((line) => line.event);
    expect(events).toEqual(['backchannel_logout.failed', 'backchannel_logout.retry', 'backchannel_logout.failed']);
    expect(log.lines.find((line) => line.event === 'backchannel_logout.retry')).toMatchObject({
      clientId: client.application.uid,
      reason: 'the client answered status 503',
      attempts: 1,
    });
    const metrics = await scrapeMetrics(op.app);
    expect(metrics).toContain('oauth_backchannel_logout_deliveries_total{outcome="delivered"} 0');
    expect(metrics).toContain('oauth_backchannel_logout_deliveries_total{outcome="retry"} 1');
    expect(metrics).toContain('oauth_backchannel_logout_deliveries_total{outcome="failed"} 2');
  });

  it('with privateAddresses none, a URI on a loopback address (stored before) is never connected to: the delivery fails at once', async () => {
    const op = await server({ privateAddresses: 'none' });
    const rp = await receiver();
    // The admin form now refuses such a URI; this one was stored while the setting allowed it.
    const client = await relyingParty(op, '');
    await op.deps.stores.applicationAdmin.update(client.application.id, { backchannelLogoutUri: rp.url });
    const dave = await user(op);
    await logOut((await signedInAt(op, dave.username, client)).agent);
    const failed = await eventually(async () => {
      const row = (await deliveryRows(op)).find((candidate) => candidate.applicationId === client.application.id);
      return row?.failedAt ? row : undefined;
    });
    expect(failed).toMatchObject({ attempts: 1, lastError: 'the address 127.0.0.1 is loopback' });
    expect(rp.requests).toEqual([]);
  });

  it('two servers on one database deliver each queued logout token once', async () => {
    const rp = await receiver();
    const a = await server();
    const b = await server();
    const client = await relyingParty(a, rp.url);
    const sessions = Array.from({ length: 24 }, (_, i) => `session-${i}`);
    await a.deps.stores.logoutDeliveries.add(
      sessions.map((sessionId) => ({ applicationId: client.application.id, subject: 'someone', sessionId })),
      a.clock.now,
    );
    await Promise.all([a.app.ready(), b.app.ready()]);
    await eventually(async () => (rp.requests.length >= sessions.length ? true : undefined), 20_000, 'every delivery');
    const ours = async () => (await deliveryRows(a)).filter((row) => row.applicationId === client.application.id);
    await eventually(async () => ((await ours()).every((row) => row.deliveredAt !== null) ? true : undefined));
    // A little longer: a second delivery of any of them would arrive now.
    expect(await rp.nothingWithin(500)).toBe(true);
    const sids = await Promise.all(
      rp.requests.map(async (request) => {
        const claims = await validLogoutToken(request.logoutToken!, {
          keys: createLocalJWKSet(await jwksOf(a)),
          issuer: a.config.baseUrl.replace(/\/+$/, ''),
          clientId: client.application.uid,
        });
        return claims.sid;
      }),
    );
    // Each queued session, as the sid this client was told for it (client-sid.ts).
    expect(sids.sort()).toEqual(sessions.map((sessionId) => sidFor(sessionId, client.application.uid)).sort());
    expect((await ours()).map((row) => row.attempts)).toEqual(sessions.map(() => 1));
  });
});
