import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serviceOnPrivatePostgres, type ServiceOnPrivatePostgres } from '../helpers/service-on-private-postgres.js';

// Issue 20: a demoted Patroni leader keeps its connections for a moment and answers every write with
// "cannot execute ... in a read-only transaction" (SQLSTATE 25006). The same happens to a primary put into
// read-only mode, which a test can do without a cluster. Writes must answer 503 with Retry-After (never 500),
// /readyz 503, reads keep working, and all of it recovers without a restart once the primary is writable. A
// write refused for less than the retry budget (a switchover) is sent again and answered 200 (failover-retry.ts).
describe('the primary turns read-only under the service, then writable again', () => {
  let service: ServiceOnPrivatePostgres;

  beforeAll(async () => {
    service = await serviceOnPrivatePostgres();
  }, 60_000);
  afterAll(async () => {
    await service?.close();
  });

  const issue = () => service.issue();
  const introspect = () => service.introspect();
  const revoke = (value: string) => service.asClient('/oauth/revoke', { token: value });
  const readyz = () => service.app.inject({ method: 'GET', url: '/readyz' });

  it('answers writes 503 temporarily_unavailable with Retry-After, /readyz 503, keeps answering reads, and recovers by itself', async () => {
    expect((await issue()).statusCode).toBe(200);
    expect((await readyz()).statusCode).toBe(200);

    await setReadOnly(service, true);
    try {
      const writes = [await issue(), await issue(), await revoke(service.token)];
      for (const response of writes) {
        expect(response.statusCode).toBe(503);
        expect(response.json()).toMatchObject({ error: 'temporarily_unavailable' });
        expect(response.headers['retry-after']).toBe('5');
      }
      const ready = await readyz();
      expect(ready.statusCode).toBe(503);
      expect(ready.json()).toEqual({ status: 'unavailable', detail: 'no writable primary (the database is read-only)' });
      // Reads need no primary: introspection still answers, and the refused revocation did not happen.
      const read = await introspect();
      expect(read.statusCode).toBe(200);
      expect(read.json()).toMatchObject({ active: true });
    } finally {
      await setReadOnly(service, false);
    }

    expect((await readyz()).statusCode).toBe(200);
    expect((await issue()).statusCode).toBe(200);
    expect((await revoke(service.token)).statusCode).toBe(200);
    expect((await introspect()).json()).toEqual({ active: false });
  }, 90_000);

  it('sends a refused write again until the primary takes it, within a few seconds (a switchover): 200, stored once', async () => {
    const before = await service.tokenRows();
    await setReadOnly(service, true);
    // 25006 proves the INSERT wrote nothing (failover-retry.ts): the request waits instead of answering 503.
    const pending = issue();
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    await setReadOnly(service, false);
    const response = await pending;
    expect(response.statusCode).toBe(200);
    const issued = response.json<{ access_token: string }>().access_token;
    expect(await service.tokenRows()).toBe(before + 1);
    expect((await service.introspect(issued)).json()).toMatchObject({ active: true });
  }, 60_000);
});

// databaseFailoverRetrySeconds 0: nothing is sent again, so the same refused write is answered 503 at once.
describe('with databaseFailoverRetrySeconds 0, a write the read-only primary refused', () => {
  let service: ServiceOnPrivatePostgres;

  beforeAll(async () => {
    service = await serviceOnPrivatePostgres({ databaseFailoverRetrySeconds: 0 });
  }, 60_000);
  afterAll(async () => {
    await service?.close();
  });

  it('is answered 503 without waiting for the primary, and stored nothing', async () => {
    const before = await service.tokenRows();
    await setReadOnly(service, true);
    const pending = service.issue();
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    await setReadOnly(service, false);
    const response = await pending;
    expect(response.statusCode).toBe(503);
    expect(response.json()).toMatchObject({ error: 'temporarily_unavailable' });
    expect(await service.tokenRows()).toBe(before);
    expect((await service.issue()).statusCode).toBe(200);
  }, 60_000);
});

/** Turns the service's primary read-only (as a demoted leader is) or writable again. */
async function setReadOnly(service: ServiceOnPrivatePostgres, on: boolean) {
  const admin = new pg.Client({ connectionString: service.postgres.superuserUrl });
  await admin.connect();
  try {
    await admin.query(on ? 'ALTER SYSTEM SET default_transaction_read_only = on' : 'ALTER SYSTEM RESET default_transaction_read_only');
    await admin.query('SELECT pg_reload_conf()');
  } finally {
    await admin.end();
  }
  // pg_reload_conf() signals the backends; give them a moment to read the file.
  await new Promise((resolve) => setTimeout(resolve, 300));
}
