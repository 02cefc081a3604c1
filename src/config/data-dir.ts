import { statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { problemAt } from './env-overrides.js';
import type { Config } from './types.js';

// config `dataDir` (DATA_DIR): the folder of the embedded database, created at the first start. A file in its way is a
// wrong setting, said here under the variable or key that set it (exit code 2, and by `config check`), not later by
// mkdir as EEXIST.

export function dataDirProblems({ dataDir, databaseUrl }: Config, env: Record<string, string | undefined>): string[] {
  if (databaseUrl !== null || dataDir.startsWith('memory://')) return [];
  // As the storage resolves it (storage/embedded-database.ts).
  const location = resolve(dataDir);
  const file = fileInTheWay(location);
  if (file === null) return [];
  const problem = file === location ? `${location} is a file, not a folder` : `${location} cannot be a folder: ${file} is a file`;
  return [problemAt('dataDir', problem, env)];
}

/** The nearest path that exists at or above `location`, when it is not a folder. */
function fileInTheWay(location: string): string | null {
  for (let path = location; ; path = dirname(path)) {
    const found = existing(path);
    if (found) return found.isDirectory() ? null : path;
    if (dirname(path) === path) return null;
  }
}

function existing(path: string) {
  try {
    return statSync(path, { throwIfNoEntry: false });
  } catch {
    // Not ours to look into (EACCES): creating the folder will say what is wrong.
    return undefined;
  }
}
