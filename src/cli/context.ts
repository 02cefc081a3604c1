import { readFileSync } from 'node:fs';
import { argon2Hasher } from '../storage/argon2-hasher.js';
import { ajvJsonSchemaChecker } from '../storage/ajv-json-schema-checker.js';
import { withoutByteOrderMark } from '../config/byte-order-mark.js';
import { ConfigError, loadConfig } from '../config/loader.js';
import { createAttemptLimits } from '../oauth/limits/attempt-limits.js';
import type { SigningKeyDeps } from '../oauth/keys/signing-key-service.js';
import type { TokenSigner } from '../oauth/keys/token-signer.js';
import type { Config } from '../config/types.js';
import type { OAuthDeps } from '../oauth/deps.js';
import { createDatabase, databaseOptions, type Database, type DatabaseOptions } from '../storage/database.js';
import { migrate, migrationStatus, NewerDatabaseSchema } from '../storage/migrate.js';
import { existingDevelopmentKey } from '../storage/development-key.js';
import { KeyEncryptionKeyInvalid, parseKeyEncryptionKey } from '../storage/key-encryption.js';
import { createStores } from '../storage/stores.js';
import { resolveConfigFile } from './config-file.js';
import { UsageError, type CliIo } from './io.js';

/** The environment each loaded config came from, for how the database is opened (NODE_ENV, PGHOST). */
const environments = new WeakMap<object, Record<string, string | undefined>>();
/** The file each loaded config was read from (absolute), null for none. */
const files = new WeakMap<object, string | null>();

/**
 * The config file of resolveConfigFile (--config, OAUTH_CONFIG, ./config.json, or none); the environment on top.
 * openid.enabled left null is on for the quick start (embedded database, not production): `serve` and every command
 * read it alike.
 */
export function configFrom(io: CliIo, path: string | undefined): Readonly<Config> {
  const file = resolveConfigFile(path, io.env, io.cwd ?? process.cwd());
  const keyProblem = keyEncryptionKeyProblem(io.env);
  let config: Readonly<Config>;
  try {
    config = loadConfig({ path: file, env: io.env, quickStartOpenId: true });
  } catch (error) {
    // Every problem at once: the file's and the key's.
    if (!(error instanceof ConfigError) || keyProblem === null) throw error;
    throw new ConfigError([...error.problems, keyProblem], file ?? 'the environment');
  }
  if (keyProblem !== null) throw new ConfigError([keyProblem], 'the environment', keyProblem);
  environments.set(config, io.env);
  files.set(config, file);
  return config;
}

/**
 * A KEY_ENCRYPTION_KEY that is set but not 32 bytes, as the stores would refuse it when they open (key-encryption.ts):
 * a wrong setting like any other (exit code 2, one line), found before a command or `serve` opens the database.
 */
function keyEncryptionKeyProblem(env: Record<string, string | undefined>): string | null {
  const key = env.KEY_ENCRYPTION_KEY;
  if (key === undefined || key === '') return null;
  try {
    parseKeyEncryptionKey(key);
    return null;
  } catch (error) {
    if (error instanceof KeyEncryptionKeyInvalid) return error.message;
    throw error;
  }
}

/** The absolute path of the file configFrom read this config from; null when it read none. */
export function configFileOf(config: Readonly<Config>): string | null {
  return files.get(config) ?? null;
}

/**
 * How a server ('server') or a CLI command ('cli') opens the database of the config. On a data folder, a CLI
 * command goes through the running server's socket, else opens the folder itself; in production
 * (NODE_ENV=production) neither creates a database in a folder that has none, unless
 * OAUTH_CREATE_EMBEDDED_DATABASE=1 says to: a container without its DATABASE_URL would otherwise start on an
 * empty database and, from the CLI, answer "no applications".
 */
export function databaseOptionsFor(config: Readonly<Config>, role: 'server' | 'cli'): DatabaseOptions {
  const env = environments.get(config) ?? {};
  const mustExist = env.NODE_ENV === 'production' && env.OAUTH_CREATE_EMBEDDED_DATABASE !== '1';
  // A CLI command run without DATABASE_READ_URL still commits as the service does with it (commitOnStandbys).
  return { ...databaseOptions(config), embedded: { role, mustExist }, pgHost: env.PGHOST ?? null, commitOnStandbys: role === 'cli' };
}

/** Whether BASE_URL or the config file sets baseUrl; without it the server derives it from where it listens. */
export function baseUrlConfigured(config: Readonly<Config>): boolean {
  if (environments.get(config)?.BASE_URL) return true;
  return writtenConfig(config).baseUrl !== undefined;
}

/** The baseUrl a server without one derives from where it listens (a wildcard host is reached on loopback). */
export function listeningBaseUrl(host: string, port: number): string {
  const wildcard = host === '0.0.0.0' || host === '::' || host === '';
  const shown = wildcard ? (host === '::' ? '[::1]' : '127.0.0.1') : host.includes(':') ? `[${host}]` : host;
  return `http://${shown}:${port}`;
}

/** Whether the config file sets openid.enabled (true or false) rather than leave it automatic (null). */
export function openIdConfigured(config: Readonly<Config>): boolean {
  const { openid } = writtenConfig(config) as { openid?: { enabled?: unknown } };
  return openid?.enabled !== undefined && openid.enabled !== null;
}

/** The config file as written, without defaults ({} without a file); configFrom has read and validated it already. */
function writtenConfig(config: Readonly<Config>): Record<string, unknown> {
  const file = configFileOf(config);
  return file ? (JSON.parse(withoutByteOrderMark(readFileSync(file, 'utf8'))) as Record<string, unknown>) : {};
}

/** KEY_ENCRYPTION_KEY, or on the embedded database the development key a server made beside the data. */
function keyEncryptionKeyOf(config: Readonly<Config>): string | null {
  if (config.keys.encryptionKey) return config.keys.encryptionKey;
  return config.databaseUrl === null ? existingDevelopmentKey(config.dataDir) : null;
}

/**
 * The domain's dependencies on an open database, outside a server: for CLI commands, and for the scripts and
 * tests that prepare data the way an operator would (the real clock, no hooks, fresh failure limits).
 */
export function domainDeps(
  database: Database,
  config: Readonly<Config>,
  stores = createStores(database, { keyEncryptionKey: keyEncryptionKeyOf(config) }),
): OAuthDeps {
  const now = () => new Date();
  const signer = signerOnFirstUse({ stores, config, now });
  const limits = createAttemptLimits(config.rateLimit);
  return { stores, config, now, hooks: {}, passwords: argon2Hasher, limits, signer, jsonSchemas: ajvJsonSchemaChecker() };
}

/** The token signer, loaded (with jose) when something first signs: no CLI command does (issue 30). */
function signerOnFirstUse(deps: SigningKeyDeps): TokenSigner {
  let signer: Promise<TokenSigner> | undefined;
  const load = () => (signer ??= import('../oauth/keys/token-signer.js').then(({ createTokenSigner }) => createTokenSigner(deps)));
  return {
    sign: async (payload, options) => (await load()).sign(payload, options),
    isRetired: async (kid) => (await load()).isRetired(kid),
  };
}

/**
 * Opens the database of the config, migrated, runs `work` with the domain's deps and closes it.
 * Every command migrates first, so the CLI works on a fresh database as the server does (`migrate --status` only reads),
 * and refuses a database a newer version migrated (NewerDatabaseSchema). `readOnly` (a dry run, which promises to change
 * nothing) does not migrate: a database with migrations to apply is refused instead.
 */
export async function withDatabase<T>(
  config: Readonly<Config>,
  work: (deps: OAuthDeps, database: Database) => Promise<T>,
  { readOnly = false }: { readOnly?: boolean } = {},
): Promise<T> {
  // With a read replica, the CLI's revocations and deletions also wait until the replica has applied them.
  const database = await createDatabase({ ...databaseOptionsFor(config, 'cli'), poolSize: 2 });
  try {
    if (readOnly) await refuseUnmigrated(database);
    else await migrate(database);
    return await work(domainDeps(database, config), database);
  } finally {
    await database.close();
  }
}

/**
 * A dry run against a database this version would migrate (a pipeline's plan step running the new image against the
 * live database) must not migrate it: there is no way back, and the instances still running the old version would
 * refuse it at their next start.
 */
async function refuseUnmigrated(database: Database): Promise<void> {
  const status = await migrationStatus(database);
  if (status.unknown.length > 0) throw new NewerDatabaseSchema(status.unknown);
  if (status.pending.length > 0)
    throw new UsageError(
      `the database has ${status.pending.length} migration(s) this version would apply (${status.pending[0]}${status.pending.length > 1 ? ', ...' : ''}): a dry run changes nothing, so it does not migrate; run 'oauth-service migrate' first`,
    );
}
