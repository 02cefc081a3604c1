import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveOverSocket, SOCKET_PORT, type EmbeddedSocketServer } from '../../src/storage/embedded-socket.js';

// The socket through which CLI commands reach a running server's PGlite (issue 14): a client's transaction and
// the server's own queries never interleave, and each client finds a clean session.
describe('the embedded database socket', () => {
  let folder: string;
  let db: PGlite;
  let server: EmbeddedSocketServer;
  let commits = 0;
  const client = () => new pg.Client({ host: folder, port: SOCKET_PORT, user: 'postgres', database: 'postgres' });

  beforeAll(async () => {
    folder = mkdtempSync(join(tmpdir(), 'oauth-socket-'));
    db = await PGlite.create('memory://');
    await db.exec('CREATE TABLE notes (id serial PRIMARY KEY, body text NOT NULL)');
    server = await serveOverSocket(db, folder, () => (commits += 1));
  });
  afterAll(async () => {
    await server.close();
    await db.close();
    rmSync(folder, { recursive: true, force: true });
  });

  it("holds the server's own queries until a client's transaction ends, and reports the commit first", async () => {
    const cli = client();
    await cli.connect();
    await cli.query('BEGIN');
    await cli.query('INSERT INTO notes (body) VALUES ($1)', ['from the CLI']);
    let seen: number | null = null;
    const inProcess = db.query<{ n: number }>('SELECT count(*)::int AS n FROM notes').then((result) => (seen = result.rows[0]!.n));
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(seen).toBeNull();
    const before = commits;
    await cli.query('COMMIT');
    expect(commits).toBeGreaterThan(before);
    await inProcess;
    expect(seen).toBe(1);
    await cli.end();
  });

  it('rolls back what a client left open when it disconnects, and gives the next client a clean session', async () => {
    const first = client();
    await first.connect();
    await first.query({ name: 'count-notes', text: 'SELECT count(*)::int AS n FROM notes' });
    await first.query('BEGIN');
    await first.query('INSERT INTO notes (body) VALUES ($1)', ['never committed']);
    // A command killed mid-transaction: the connection just ends.
    first.on('error', () => undefined);
    first.connection.stream.destroy();

    const second = client();
    await second.connect();
    // The same statement name again: the first client's prepared statements are gone with it.
    const { rows } = await second.query<{ n: number }>({ name: 'count-notes', text: 'SELECT count(*)::int AS n FROM notes' });
    expect(rows[0]!.n).toBe(1);
    expect(db.isInTransaction()).toBe(false);
    await second.end();
  });

  it('serves clients one after the other: a second connection waits for the first to close', async () => {
    const first = client();
    await first.connect();
    const second = client();
    let secondReady = false;
    const connecting = second.connect().then(() => (secondReady = true));
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(secondReady).toBe(false);
    // Meanwhile the server's own queries still run.
    expect((await db.query<{ one: number }>('SELECT 1 AS one')).rows[0]!.one).toBe(1);
    await first.end();
    await connecting;
    expect((await second.query<{ n: number }>('SELECT count(*)::int AS n FROM notes')).rows[0]!.n).toBe(1);
    await second.end();
  });
});
