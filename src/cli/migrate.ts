import { resolve } from 'node:path';
import type { Config } from '../config/types.js';
import { createDatabase } from '../storage/database.js';
import { holdsEmbeddedDatabase } from '../storage/embedded-database.js';
import { migrate, migrationStatus, NewerDatabaseSchema, readMigrations, type MigrationStatus } from '../storage/migrate.js';
import { configFrom, databaseOptionsFor } from './context.js';
import { parseOptions, printJson, type CliIo } from './io.js';

const HELP = `Usage: oauth-service migrate [--status] [--json] [--config PATH]

Applies pending migrations from prisma/migrations, each in a transaction, under an advisory lock
(safe while other instances start). --status only lists applied and pending migrations (exit code 1
when the database holds migrations of a newer version, which this one cannot run on).
`;

export async function runMigrateCommand(args: string[], io: CliIo): Promise<number> {
  const { values } = parseOptions(args, { status: { type: 'boolean' } });
  if (values.help) return (io.stdout(HELP), 0);
  const config = configFrom(io, values.config);
  // --status only reads: a data folder without a database (a new one, or a mistyped path) is said, not created.
  const missing = values.status ? missingEmbeddedDatabase(config) : null;
  if (missing !== null) {
    io.stderr(`oauth-service: no database in ${missing} yet (nothing was created there): every migration is pending\n`);
    return printStatus(io, { applied: [], pending: readMigrations().map((migration) => migration.name), unknown: [] }, values.json);
  }
  const database = await createDatabase({ ...databaseOptionsFor(config, 'cli'), databaseReadUrl: null, poolSize: 1 });
  try {
    if (values.status) return printStatus(io, await migrationStatus(database), values.json);
    const applied = await migrate(database);
    if (values.json) printJson(io, { applied, database: database.location });
    else io.stdout(applied.length ? `applied ${applied.join(', ')} to ${database.location}\n` : `${database.location} is up to date\n`);
    return 0;
  } finally {
    await database.close();
  }
}

function printStatus(io: CliIo, status: MigrationStatus, json: boolean | undefined): number {
  if (json) printJson(io, status);
  else {
    io.stdout(`applied: ${status.applied.join(', ') || 'none'}\npending: ${status.pending.join(', ') || 'none'}\n`);
    if (status.unknown.length > 0) io.stdout(`unknown (applied by a newer version): ${status.unknown.join(', ')}\n`);
  }
  // This version cannot run on that database (every other command refuses it): a pre-flight script sees it in the code.
  if (status.unknown.length === 0) return 0;
  io.stderr(`oauth-service: ${new NewerDatabaseSchema(status.unknown).message}\n`);
  return 1;
}

/** The embedded data folder of the config when it holds no database yet; null on PostgreSQL or memory://. */
function missingEmbeddedDatabase(config: Readonly<Config>): string | null {
  if (config.databaseUrl !== null || config.dataDir.startsWith('memory://')) return null;
  const location = resolve(config.dataDir);
  return holdsEmbeddedDatabase(location) ? null : location;
}
