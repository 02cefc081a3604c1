import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const FILE = 'key-encryption-key';

/**
 * For a development server on the embedded database with OpenID Connect on and no KEY_ENCRYPTION_KEY: the key
 * kept beside the data (made once, owner-only), so `npm start` works out of the box. Whoever copies the data
 * folder copies the key with it: the caller warns, and production refuses this (config/loader.ts).
 */
export function developmentKeyEncryptionKey(dataDir: string): { key: string; path: string; created: boolean } {
  // An in-memory database lives as long as the process: so may its key, which has no folder to be kept in.
  if (dataDir.startsWith('memory://')) return { key: randomBytes(32).toString('hex'), path: `${dataDir} (in memory)`, created: true };
  const path = join(dataDir, FILE);
  try {
    return { key: readFileSync(path, 'utf8').trim(), path, created: false };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  const key = randomBytes(32).toString('hex');
  writeFileSync(path, `${key}\n`, { mode: 0o600, flag: 'wx' });
  return { key, path, created: true };
}

/** The development key a server made beside the data, for CLI commands on the same folder; null when there is none. */
export function existingDevelopmentKey(dataDir: string): string | null {
  if (dataDir.startsWith('memory://')) return null;
  try {
    return readFileSync(join(dataDir, FILE), 'utf8').trim();
  } catch {
    return null;
  }
}
