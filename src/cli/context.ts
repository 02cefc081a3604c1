import { argon2Hasher } from '../argon2-hasher.js';
import { loadConfig } from '../config/loader.js';
import { createAttemptLimits } from '../oauth/attempt-limits.js';
import type { Config } from '../config/types.js';
import type { OAuthDeps } from '../oauth/deps.js';
import { createDatabase, databaseOptions, type Database } from '../storage/database.js';
import { migrate } from '../storage/migrate.js';
import { createStores } from '../storage/stores.js';
import type { CliIo } from './io.js';

/** The config file named by --config, else OAUTH_CONFIG, else defaults; the environment on top. */
export function configFrom(io: CliIo, path: string | undefined): Readonly<Config> {
  return loadConfig({ path: path ?? io.env.OAUTH_CONFIG ?? null, env: io.env });
}

/**
 * Opens the database of the config, migrated, runs `work` with the domain's deps and closes it.
 * Commands that change data migrate first, so the CLI works on a fresh database as the server does.
 */
export async function withDatabase<T>(config: Readonly<Config>, work: (deps: OAuthDeps, database: Database) => Promise<T>): Promise<T> {
  // With a read replica, the CLI's revocations and deletions also wait until the replica has applied them.
  const database = await createDatabase({ ...databaseOptions(config), poolSize: 2 });
  try {
    await migrate(database);
    return await work({ stores: createStores(database), config, now: () => new Date(), hooks: {}, passwords: argon2Hasher, limits: createAttemptLimits(config.rateLimit) }, database);
  } finally {
    await database.close();
  }
}
