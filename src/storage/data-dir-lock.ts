import { closeSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** The file in an embedded data folder that names the one process that has it open. */
export const LOCK_FILE = 'oauth-service.lock';

/**
 * A server owns the folder for as long as it runs and serves it to CLI commands over a Unix socket
 * (embedded-socket.ts); a CLI command that finds no server owns it for the length of the command.
 */
export type OwnerRole = 'server' | 'cli';

export interface DataDirOwner {
  pid: number;
  role: OwnerRole;
  /** The kernel's start time of the process (Linux), so that a pid reused after a crash is not mistaken for the owner. */
  startTime: string | null;
}

export interface DataDirLock {
  readonly path: string;
  release(): void;
}

/** Another live process has the folder open: opening a second copy would lose one side's writes. */
export class DataDirInUse extends Error {
  constructor(
    readonly dataDir: string,
    readonly owner: DataDirOwner,
  ) {
    super(
      `the embedded database ${dataDir} is in use by ${owner.role === 'server' ? 'the server' : 'a CLI command'} running as process ${owner.pid}`,
    );
    this.name = 'DataDirInUse';
  }
}

/**
 * Takes the folder's lock (O_EXCL create of LOCK_FILE with our pid), taking over a stale one whose process is
 * gone (a SIGKILLed server) and whose socket does not answer. Throws DataDirInUse while the owner lives.
 */
export async function lockDataDir(dataDir: string, role: OwnerRole, serverAnswers: () => Promise<boolean>): Promise<DataDirLock> {
  const path = join(dataDir, LOCK_FILE);
  const mine: DataDirOwner = { pid: process.pid, role, startTime: processStartTime(process.pid) };
  for (let attempt = 0; attempt < 5; attempt += 1) {
    if (createExclusively(path, `${JSON.stringify(mine)}\n`)) return { path, release: () => releaseIfMine(path, mine.pid) };
    const owner = await readOwnerSettled(path);
    // A server in another pid namespace (a container sharing the volume) has a pid that means nothing here,
    // but its socket answers.
    if (owner && (isAlive(owner) || (owner.role === 'server' && (await serverAnswers())))) throw new DataDirInUse(dataDir, owner);
    // The owner is gone (or the file is not ours to read): its PGlite is closed, so the folder is free.
    rmSync(path, { force: true });
  }
  throw new Error(`cannot take the lock ${path}: it keeps reappearing (another process starting at the same moment?)`);
}

/** The live owner of the folder, if any (for CLI commands deciding whether to go through the server). */
export function liveOwner(dataDir: string): DataDirOwner | null {
  const owner = readOwner(join(dataDir, LOCK_FILE));
  return owner && isAlive(owner) ? owner : null;
}

// The embedded database and its lock live in the folder: one the process cannot write to is said as such, with the way out.
const UNWRITABLE: Record<string, string> = {
  EROFS: 'it is on a read-only file system (mount it read-write, or set DATA_DIR to a writable folder)',
  EACCES: 'permission denied (give the user this service runs as write access to it, or set DATA_DIR to a folder it owns)',
  EPERM: 'permission denied (give the user this service runs as write access to it, or set DATA_DIR to a folder it owns)',
  ENOSPC: 'its disk is full (free some space)',
};

function createExclusively(path: string, content: string): boolean {
  let fd: number;
  try {
    fd = openSync(path, 'wx', 0o600);
  } catch (error) {
    const { code } = error as NodeJS.ErrnoException;
    if (code === 'EEXIST') return false;
    const why = UNWRITABLE[code ?? ''];
    if (why) throw new Error(`cannot write to the data folder ${dirname(path)}: ${why}`, { cause: error });
    throw error;
  }
  try {
    writeSync(fd, content);
  } finally {
    closeSync(fd);
  }
  return true;
}

// A lock file that is empty or half-written may belong to a process between its create and its write.
async function readOwnerSettled(path: string): Promise<DataDirOwner | null> {
  const owner = readOwner(path);
  if (owner) return owner;
  await new Promise((resolve) => setTimeout(resolve, 100));
  return readOwner(path);
}

function readOwner(path: string): DataDirOwner | null {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return null;
  }
  try {
    const parsed = JSON.parse(text) as Partial<DataDirOwner>;
    if (!Number.isInteger(parsed.pid) || (parsed.pid as number) <= 0) return null;
    return { pid: parsed.pid as number, role: parsed.role === 'server' ? 'server' : 'cli', startTime: parsed.startTime ?? null };
  } catch {
    return null;
  }
}

function isAlive(owner: DataDirOwner): boolean {
  try {
    process.kill(owner.pid, 0);
  } catch (error) {
    // EPERM: the process exists but belongs to another user.
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  const startTime = processStartTime(owner.pid);
  return owner.startTime === null || startTime === null || startTime === owner.startTime;
}

function releaseIfMine(path: string, pid: number): void {
  if (readOwner(path)?.pid === pid) rmSync(path, { force: true });
}

// Field 22 of /proc/<pid>/stat, counted after the command name (which may itself contain spaces and parentheses).
function processStartTime(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19] ?? null;
  } catch {
    return null;
  }
}
