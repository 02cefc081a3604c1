import { ConfigError } from '../config/loader.js';
import { insecureIssuerWarning, missingSessionSecret } from '../config/production-settings.js';
import type { Config } from '../config/types.js';
import { configFileLine, resolveConfigFile } from './config-file.js';
import { baseUrlConfigured, configFileOf, configFrom } from './context.js';
import { parseOptions, printJson, UsageError, type CliIo } from './io.js';

const HELP = `Usage: oauth-service config check [--config PATH|none] [--json]

Loads the configuration exactly as the server does and reports every problem with its key path: the file of
--config PATH, else OAUTH_CONFIG, else ./config.json when it exists (none: no file), plus the environment.
Prints which file it read. Exit code 0 when valid, 2 when not.
`;

export async function runConfigCommand(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseOptions(args, {}, true);
  if (values.help) return (io.stdout(HELP), 0);
  if (positionals[0] !== 'check' || positionals.length > 1) throw new UsageError(`expected 'config check' (try 'config --help')`);
  let config: Readonly<Config>;
  try {
    config = configFrom(io, values.config);
    // What `serve` refuses after loading, so that a check run before a deployment predicts its start.
    const refusal = missingSessionSecret(config, io.env);
    if (refusal) throw new ConfigError([refusal], 'the environment', refusal);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    // The file it tried to read, which a broken file never yields through a loaded config.
    const configFile = resolveConfigFile(values.config, io.env, io.cwd ?? process.cwd());
    if (values.json) printJson(io, { valid: false, configFile, problems: error.problems });
    else io.stderr(`${configFileLine(configFile)}\n${error.message}\n`);
    return 2;
  }
  const configFile = configFileOf(config);
  if (values.json) printJson(io, { valid: true, configFile, config: withSecretsHidden(config) });
  else io.stdout(`${configFileLine(configFile)}\nconfiguration is valid\n`);
  for (const deprecation of config.deprecations) io.stderr(`warning: ${deprecation}\n`);
  // Without baseUrl the server's issuer is http://HOST:PORT, which is not https either.
  const insecureIssuer = insecureIssuerWarning(config, io.env);
  if (insecureIssuer)
    io.stderr(`warning: ${insecureIssuer}${baseUrlConfigured(config) ? '' : ' (baseUrl is not set: derived from HOST and PORT)'}\n`);
  return 0;
}

/** Secrets and URLs that may hold a password shown as set or not, never as they are. */
function withSecretsHidden(config: Readonly<Config>) {
  const set = (value: string | null | undefined) => (value ? '[set]' : null);
  return {
    ...config,
    sessionSecret: set(config.sessionSecret),
    databaseUrl: set(config.databaseUrl),
    databaseReadUrl: set(config.databaseReadUrl),
    databaseDirectUrl: set(config.databaseDirectUrl),
    admin: { ...config.admin, password: set(config.admin.password) },
    keys: { ...config.keys, encryptionKey: set(config.keys.encryptionKey) },
    openid: { ...config.openid, pairwiseSalt: set(config.openid.pairwiseSalt) },
    metrics: { ...config.metrics, token: set(config.metrics.token) },
  };
}
