// Environment variables that override config keys (the secrets among them never need to be in a file): one table,
// which both applies them and names the variable behind a wrong value ("environment variable PORT: ...").

/** The config as read, before validation: a JSON object whose values the schema has yet to check. */
export type UnvalidatedConfig = Record<string, unknown>;

/** What a problem line starts with when an environment variable, not the file, set the wrong value. */
export const ENV_PREFIX = 'environment variable ';

// Anything that does not parse is left as the string, for the schema to report with the variable's name.
// A negative number is a number too, for the schema to say it is out of range rather than not an integer.
const integer = (value: string) => (/^-?\d+$/.test(value) ? Number(value) : value);
const boolean = (value: string) => (value === 'true' || value === 'false' ? value === 'true' : value);
/** A key whose null means something (metrics.port: no listener; openid.enabled: automatic) takes the word null too. */
const orNull = (parse: (value: string) => unknown) => (value: string) => (value === 'null' ? null : parse(value));
/** TRUST_PROXY: true/false, a hop count, or addresses/CIDRs separated by commas (as the config key takes them). */
const trustProxy = (value: string) => (value === 'true' || value === 'false' ? value === 'true' : integer(value));

const ENV_OVERRIDES: ReadonlyArray<{ variable: string; path: string; parse?: (value: string) => unknown }> = [
  { variable: 'DATABASE_URL', path: 'databaseUrl' },
  { variable: 'DATABASE_READ_URL', path: 'databaseReadUrl' },
  { variable: 'DATABASE_DIRECT_URL', path: 'databaseDirectUrl' },
  { variable: 'DATABASE_FAILOVER_RETRY_SECONDS', path: 'databaseFailoverRetrySeconds', parse: integer },
  { variable: 'DATABASE_PREPARED_STATEMENTS', path: 'databasePreparedStatements', parse: boolean },
  { variable: 'SESSION_SECRET', path: 'sessionSecret' },
  { variable: 'SESSION_SECRET_FILE', path: 'sessionSecretFile' },
  { variable: 'OPENID_ENABLED', path: 'openid.enabled', parse: orNull(boolean) },
  { variable: 'PAIRWISE_SALT', path: 'openid.pairwiseSalt' },
  { variable: 'ADMIN_PASSWORD_HASH', path: 'admin.passwordHash' },
  { variable: 'PORT', path: 'port', parse: integer },
  { variable: 'HOST', path: 'host' },
  { variable: 'BASE_URL', path: 'baseUrl' },
  { variable: 'DATA_DIR', path: 'dataDir' },
  { variable: 'LOG_LEVEL', path: 'log.level' },
  { variable: 'TRUST_PROXY', path: 'trustProxy', parse: trustProxy },
  { variable: 'METRICS_HOST', path: 'metrics.host' },
  { variable: 'METRICS_PORT', path: 'metrics.port', parse: orNull(integer) },
];

const isSet = (value: string | undefined): value is string => value !== undefined && value !== '';

/** Writes each set variable's value at its key; a section missing on the way is created (the schema checks the rest). */
export function applyEnvOverrides(config: UnvalidatedConfig, env: Record<string, string | undefined>): void {
  for (const { variable, path, parse } of ENV_OVERRIDES) {
    const value = env[variable];
    if (!isSet(value)) continue;
    const keys = path.split('.');
    const last = keys.pop()!;
    const section = sectionAt(config, keys);
    // A section that is no object (`"metrics": 5`) is the file's own problem, which its validation reports (loader.ts).
    if (section) section[last] = parse ? parse(value) : value;
  }
}

/** The object at `keys`, created where it is missing; null where something other than an object is in the way. */
function sectionAt(config: UnvalidatedConfig, keys: string[]): UnvalidatedConfig | null {
  let section = config;
  for (const key of keys) {
    const next = (section[key] ??= {});
    if (typeof next !== 'object' || next === null || Array.isArray(next)) return null;
    section = next as UnvalidatedConfig;
  }
  return section;
}

/** The environment variable whose value is at `path` (dotted), when one was set there: it overrides the file. */
export function envVariableAt(path: string, env: Record<string, string | undefined>): string | undefined {
  return ENV_OVERRIDES.find((override) => override.path === path && isSet(env[override.variable]))?.variable;
}

/** A problem line for the value at `path`: under the environment variable that set it, else under the key. */
export function problemAt(path: string, problem: string, env: Record<string, string | undefined>): string {
  const variable = envVariableAt(path, env);
  return `${variable ? `${ENV_PREFIX}${variable}` : path}: ${problem}`;
}
