import { chmodSync, existsSync, mkdirSync, statSync } from 'node:fs';
import { connect } from 'node:net';
import { dirname, join, resolve } from 'node:path';
import type { PGlite } from '@electric-sql/pglite';
import { DataDirInUse, liveOwner, LOCK_FILE, lockDataDir, type DataDirLock, type OwnerRole } from './data-dir-lock.js';
import { serveOverSocket, socketPath, socketPathFits, SOCKET_PORT, type EmbeddedSocketServer } from './embedded-socket.js';

/** How a process uses an embedded data folder (a path, not memory://). */
export interface EmbeddedAccess {
  /**
   * 'server': owns the folder while it runs (a second server stops at boot) and serves it to CLI commands over
   * the folder's socket. 'cli': goes through a running server's socket; with no server, owns the folder itself
   * for the length of the command.
   */
  role: OwnerRole;
  /** Refuse a folder that holds no database yet instead of creating one (production without DATABASE_URL). */
  mustExist?: boolean;
}

/** Where the database is: opened here under the folder's lock, or reached through the running server. */
export type EmbeddedRoute =
  | { kind: 'open'; location: string; lock: DataDirLock | null }
  | { kind: 'socket'; location: string; host: string; port: number; ownerPid: number };

/** NODE_ENV=production found no database in the folder: most likely DATABASE_URL did not reach the process. */
export class EmbeddedDatabaseMissing extends Error {
  constructor(readonly dataDir: string) {
    super(
      `no embedded database in ${dataDir}, and NODE_ENV is production: DATABASE_URL is probably missing. ` +
        'Set DATABASE_URL, or set OAUTH_CREATE_EMBEDDED_DATABASE=1 to create an embedded database there.',
    );
    this.name = 'EmbeddedDatabaseMissing';
  }
}

// A server still booting has taken the lock but not opened its socket yet.
const SOCKET_WAIT_MS = 10_000;
// A CLI command has the folder (no server was running when it started): wait for it to finish.
const CLI_WAIT_MS = 30_000;

/**
 * PostgreSQL's postmaster.pid, which PGlite writes while it has the folder open and removes when it closes it, with no
 * lock file beside it: the folder is open in a version of this service older than the lock (2026-11-25), or was when
 * that version crashed. Opening a second copy would destroy the database (found by the upgrade audit).
 */
export class EmbeddedDatabaseOpenElsewhere extends Error {
  constructor(readonly dataDir: string) {
    super(
      `the embedded database ${dataDir} holds PostgreSQL's postmaster.pid but no ${LOCK_FILE}: an older version of ` +
        'oauth-service (they take no lock) may have it open. Stop that server first; if none runs (it crashed), delete ' +
        `${join(dataDir, 'postmaster.pid')} and try again.`,
    );
    this.name = 'EmbeddedDatabaseOpenElsewhere';
  }
}

/** Whether the folder holds an embedded database already (PostgreSQL's PG_VERSION, written by its first start). */
export const holdsEmbeddedDatabase = (location: string): boolean => existsSync(join(location, 'PG_VERSION'));

/**
 * Whether a server opening this folder makes a new database there: PostgreSQL's initdb, in WebAssembly, then every
 * migration, several seconds of silence before the first log line that the boot announces (a container's first start
 * under load took over a minute in CI).
 */
export function createsEmbeddedDatabase(dataDir: string, access: EmbeddedAccess): boolean {
  if (dataDir.startsWith('memory://') || access.mustExist) return false;
  const location = resolve(dataDir);
  // A file where the folder should be is refused (one line, exit 2), not created.
  return !existsSync(location) || (statSync(location).isDirectory() && !holdsEmbeddedDatabase(location));
}

/** Decides how this process reaches the folder, taking its lock when it opens the folder itself. */
export async function routeToEmbedded(dataDir: string, access: EmbeddedAccess): Promise<EmbeddedRoute> {
  if (dataDir.startsWith('memory://')) return { kind: 'open', location: dataDir, lock: null };
  const location = resolve(dataDir);
  if (access.mustExist && !holdsEmbeddedDatabase(location)) throw new EmbeddedDatabaseMissing(location);
  // This version takes the lock before PGlite writes postmaster.pid and releases it after PGlite removed it.
  if (!existsSync(join(location, LOCK_FILE)) && existsSync(join(location, 'postmaster.pid'))) {
    throw new EmbeddedDatabaseOpenElsewhere(location);
  }
  prepareFolder(location);
  const deadline = Date.now() + CLI_WAIT_MS;
  for (;;) {
    try {
      const serverAnswers = async () => (await probeSocket(socketPath(location))) === null;
      return { kind: 'open', location, lock: await lockDataDir(location, access.role, serverAnswers) };
    } catch (error) {
      if (!(error instanceof DataDirInUse)) throw error;
      if (error.owner.role === 'server') {
        if (access.role === 'server') throw new Error(`${error.message}: stop it first, or give this one another DATA_DIR`);
        return socketRoute(location, error.owner.pid);
      }
      if (Date.now() > deadline) throw new Error(`${error.message}; it has not finished in ${CLI_WAIT_MS / 1000} s`);
      await sleep(200);
    }
  }
}

/** Opens the socket of a server that owns the folder; the socket is closed again when the server stops. */
export async function startSocketServer(
  db: PGlite,
  location: string,
  onWarning: (message: string) => void,
  onCommit: () => void,
): Promise<EmbeddedSocketServer | null> {
  if (socketPathFits(location)) return serveOverSocket(db, location, onCommit);
  onWarning(`the path of ${location} is too long for a Unix socket: CLI commands cannot reach this server while it runs`);
  return null;
}

async function socketRoute(location: string, ownerPid: number): Promise<EmbeddedRoute> {
  const path = socketPath(location);
  const deadline = Date.now() + SOCKET_WAIT_MS;
  for (;;) {
    const problem = await probeSocket(path);
    if (problem === null)
      return {
        kind: 'socket',
        location: `${location} (through the server, process ${ownerPid})`,
        host: location,
        port: SOCKET_PORT,
        ownerPid,
      };
    if (liveOwner(location)?.pid !== ownerPid) return routeAfterOwnerLeft(location);
    if (Date.now() > deadline) {
      throw new Error(
        `the embedded database ${location} is in use by the server running as process ${ownerPid}, ` +
          `but its socket ${path} cannot be reached (${problem}); not opening a second copy of the folder`,
      );
    }
    await sleep(200);
  }
}

// The server stopped while we waited for its socket: try again from the start (the folder may be free now).
function routeAfterOwnerLeft(location: string): Promise<EmbeddedRoute> {
  return routeToEmbedded(location, { role: 'cli' });
}

function probeSocket(path: string): Promise<string | null> {
  return new Promise((done) => {
    const socket = connect(path);
    socket.once('connect', () => {
      socket.destroy();
      done(null);
    });
    socket.once('error', (error: NodeJS.ErrnoException) => done(error.code ?? error.message));
  });
}

// PostgreSQL insists on an owner-only PGDATA; the folder also holds the socket, which no one else may reach.
function prepareFolder(location: string): void {
  try {
    makeFolders(location);
  } catch (error) {
    throw new Error(`the data folder (dataDir) ${location} cannot be created: ${(error as Error).message}`);
  }
  try {
    if ((statSync(location).mode & 0o077) !== 0) chmodSync(location, 0o700);
  } catch {
    // Not ours to change (another user's folder): PGlite will say whether it can use it.
  }
}

/**
 * mkdir -p one level at a time: Node.js's recursive mkdir spins forever where mkdir answers ENOENT under a parent that
 * exists (a path in /proc), where this fails at once. A folder made meanwhile by another process is no failure.
 */
function makeFolders(location: string): void {
  const missing: string[] = [];
  for (let folder = location; !existsSync(folder) && dirname(folder) !== folder; folder = dirname(folder)) missing.unshift(folder);
  for (const folder of missing) {
    try {
      mkdirSync(folder, { mode: 0o700 });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
