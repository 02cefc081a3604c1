import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { temporaryFolder } from './temporary-folder.js';

/**
 * A temp folder for the service processes a boot test starts: `folder(name)` a path in it (a data folder), and
 * `configFile(name, config)` the config file written there, for OAUTH_CONFIG. Removed as temporaryFolder's are.
 */
export function bootFolder(prefix: string): { folder(name: string): string; configFile(name: string, config: unknown): string } {
  const root = temporaryFolder(prefix);
  return {
    folder: (name) => join(root, name),
    configFile(name, config) {
      const path = join(root, `${name}.json`);
      writeFileSync(path, JSON.stringify(config));
      return path;
    },
  };
}
