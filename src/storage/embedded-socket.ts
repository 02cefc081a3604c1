import { chmodSync, rmSync } from 'node:fs';
import { createServer, type Socket } from 'node:net';
import { join } from 'node:path';
import type { PGlite } from '@electric-sql/pglite';

/**
 * The server's PGlite, served to CLI commands over a Unix socket in the data folder, so that what a CLI command
 * writes is what the running server reads. Named as PostgreSQL names its sockets, so a pg client whose host is
 * the folder finds it (`psql -h DATA_DIR` works too).
 *
 * Why not @electric-sql/pglite-socket: it serialises its own clients message by message, but not against the
 * server's own queries on the same PGlite, which could then run inside a CLI command's transaction. Here a
 * client holds PGlite's transaction and query locks (the ones PGlite's query() and transaction() take) from its
 * first message until PGlite answers ReadyForQuery with status idle, so the two never interleave.
 */
export const SOCKET_PORT = 5432;
export const socketPath = (dataDir: string) => join(dataDir, `.s.PGSQL.${SOCKET_PORT}`);

// Longer paths do not fit in sockaddr_un (108 bytes on Linux, 104 on macOS).
const MAX_SOCKET_PATH = 103;
// A client that keeps a transaction open and says nothing blocks the server's own requests: it is disconnected.
const IDLE_IN_TRANSACTION_MS = 10_000;

const SSL_REQUEST = 80877103;
const CANCEL_REQUEST = 80877102;
const SYNC = Uint8Array.of(0x53, 0, 0, 0, 4);
// What a client leaves behind in the one session it shares with the server: its prepared statements, cursors
// and advisory locks (the next client's driver starts with none of them).
const SESSION_RESET = 'DEALLOCATE ALL; CLOSE ALL; SELECT pg_advisory_unlock_all()';

export interface EmbeddedSocketServer {
  readonly path: string;
  close(): Promise<void>;
}

export function socketPathFits(dataDir: string): boolean {
  return Buffer.byteLength(socketPath(dataDir)) <= MAX_SOCKET_PATH;
}

/**
 * Listens on the folder's socket (mode 0600; the folder itself is owner-only). Clients are served one after the
 * other: a pg pool of one per CLI command, and further commands wait for the one before to disconnect, because
 * they share PGlite's single session (prepared statement names would collide).
 */
export async function serveOverSocket(db: PGlite, dataDir: string, onCommit: () => void): Promise<EmbeddedSocketServer> {
  const path = socketPath(dataDir);
  // A socket file left by a server that was killed: the caller holds the folder's lock, so it is not in use.
  rmSync(path, { force: true });
  const sockets = new Set<Socket>();
  let queue = Promise.resolve();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.pause();
    socket.on('error', () => socket.destroy());
    socket.once('close', () => sockets.delete(socket));
    queue = queue.then(() => serveClient(db, socket, onCommit));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(path, () => resolve());
  });
  chmodSync(path, 0o600);
  return {
    path,
    async close() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const socket of sockets) socket.destroy();
      await closed;
      await queue;
      rmSync(path, { force: true });
    },
  };
}

/** Serves one client to the end of its connection, then resets the session for the next. */
function serveClient(db: PGlite, socket: Socket, onCommit: () => void): Promise<void> {
  if (socket.destroyed) return Promise.resolve();
  return new Promise<void>((done) => {
    const session = new ClientSession(db, socket, onCommit);
    socket.on('data', (chunk: Buffer) => session.receive(chunk));
    socket.once('close', () => void session.end().then(done, done));
    socket.resume();
  });
}

class ClientSession {
  private buffer = Buffer.alloc(0);
  private started = false;
  private work = Promise.resolve();
  private release: (() => void) | null = null;
  private idleTimer: NodeJS.Timeout | null = null;

  constructor(
    private readonly db: PGlite,
    private readonly socket: Socket,
    private readonly onCommit: () => void,
  ) {}

  receive(chunk: Buffer): void {
    this.buffer = Buffer.concat([this.buffer, chunk]);
    for (let message = this.nextMessage(); message; message = this.nextMessage()) {
      const current = message;
      this.work = this.work.then(() => this.handle(current)).catch(() => void this.socket.destroy());
    }
  }

  async end(): Promise<void> {
    await this.work;
    this.clearIdleTimer();
    if (!this.started) return;
    if (!this.release) this.release = await acquire(this.db);
    // Ends what the client left unfinished: a batch without its Sync, an open transaction.
    if (readyStatus(await this.db.execProtocolRaw(SYNC)) !== 'I') await this.db.execProtocolRaw(simpleQuery('ROLLBACK'));
    await this.db.execProtocolRaw(simpleQuery(SESSION_RESET));
    this.unlock();
  }

  // The startup packet has no type byte; every later message is a type byte and an int32 length that counts itself.
  private nextMessage(): { type: string; bytes: Buffer } | null {
    const headerLength = this.started ? 5 : 8;
    if (this.buffer.length < headerLength) return null;
    const length = this.started ? this.buffer.readInt32BE(1) + 1 : this.buffer.readInt32BE(0);
    if (length < headerLength || length > 1 << 30) {
      this.socket.destroy();
      return null;
    }
    if (this.buffer.length < length) return null;
    const bytes = this.buffer.subarray(0, length);
    this.buffer = this.buffer.subarray(length);
    const type = this.started ? String.fromCharCode(bytes[0]!) : startupType(bytes.readInt32BE(4));
    if (type === 'startup') this.started = true;
    return { type, bytes };
  }

  private async handle({ type, bytes }: { type: string; bytes: Buffer }): Promise<void> {
    if (this.socket.destroyed) return;
    if (type === 'ssl') return void this.socket.write('N');
    // A cancel request (PGlite cannot interrupt a query) or the client's Terminate: the connection ends here,
    // and end() rolls back whatever it left open. PGlite itself never sees a Terminate.
    if (type === 'cancel' || type === 'X') return void this.socket.end();
    this.clearIdleTimer();
    if (!this.release) this.release = await acquire(this.db);
    const response = await this.db.execProtocolRaw(new Uint8Array(bytes));
    const settled = (type === 'startup' || type === 'S' || type === 'Q') && readyStatus(response) === 'I';
    // Before the client hears of its commit, so the server's caches are fresh by the time the command exits.
    if (settled) this.onCommit();
    if (!this.socket.destroyed) this.socket.write(response);
    if (settled) this.unlock();
    else this.idleTimer = setTimeout(() => this.socket.destroy(), IDLE_IN_TRANSACTION_MS);
  }

  private unlock(): void {
    this.release?.();
    this.release = null;
  }

  private clearIdleTimer(): void {
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = null;
  }
}

function startupType(code: number): string {
  if (code === SSL_REQUEST) return 'ssl';
  if (code === CANCEL_REQUEST) return 'cancel';
  return 'startup';
}

/** Holds PGlite's transaction lock, then its query lock (the order its own query() takes them), until released. */
function acquire(db: PGlite): Promise<() => void> {
  return new Promise((acquired) => {
    void db._runExclusiveTransaction(() => db._runExclusiveQuery(() => new Promise<void>((release) => acquired(release))));
  });
}

// ReadyForQuery ('Z', length 5, status) ends every answer to a Sync, a simple Query and the startup packet.
function readyStatus(response: Uint8Array): string | null {
  const at = response.length - 6;
  return at >= 0 && response[at] === 0x5a ? String.fromCharCode(response[at + 5]!) : null;
}

function simpleQuery(text: string): Uint8Array {
  const body = Buffer.from(`${text}\0`);
  const header = Buffer.alloc(5);
  header.write('Q');
  header.writeInt32BE(body.length + 4, 1);
  return new Uint8Array(Buffer.concat([header, body]));
}
