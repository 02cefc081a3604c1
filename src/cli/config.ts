import { ConfigError } from '../config/loader.js';
import { insecureIssuerWarning, missingSessionSecret } from '../config/production-settings.js';
import type { Config } from '../config/types.js';
import { requestedTraceProtocol } from '../telemetry/trace-protocol.js';
import { configFileLine, resolveConfigFile } from './config-file.js';
import { baseUrlConfigured, configFileOf, configFrom, listeningBaseUrl } from './context.js';
import { parseOptions, printJson, UsageError, type CliIo } from './io.js';

const HELP = `Usage: oauth-service config check [--config PATH|none] [--json]

Loads the configuration exactly as the server does and reports every problem with its key path: the file of
--config PATH, else OAUTH_CONFIG, else ./config.json when it exists (none: no file), plus the environment,
and every other setting 'serve' stops on (KEY_ENCRYPTION_KEY, the OTLP protocol of traces, a session secret in
production, an extensions module that does not load). Prints which file it read. Exit code 0 when valid, 2 when not.
`;

export async function runConfigCommand(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseOptions(args, {}, true);
  if (values.help) return (io.stdout(HELP), 0);
  if (positionals[0] !== 'check' || positionals.length > 1) throw new UsageError(`expected 'config check' (try 'config --help')`);
  const checked = await checkedConfig(io, values.config);
  if (!('config' in checked)) {
    // The file it tried to read, which a broken file never yields through a loaded config.
    const configFile = resolveConfigFile(values.config, io.env, io.cwd ?? process.cwd());
    if (values.json) printJson(io, { valid: false, configFile, problems: checked.problems });
    else io.stderr(`${configFileLine(configFile)}\n${checked.message}\n`);
    return 2;
  }
  const configFile = configFileOf(checked.config);
  // Without baseUrl, the one serve will derive from HOST and PORT (the schema's default names port 3000).
  const config = baseUrlConfigured(checked.config)
    ? checked.config
    : { ...checked.config, baseUrl: listeningBaseUrl(checked.config.host, checked.config.port) };
  if (values.json) printJson(io, { valid: true, configFile, config: withSecretsHidden(config) });
  else io.stdout(`${configFileLine(configFile)}\nconfiguration is valid\n`);
  for (const deprecation of config.deprecations) io.stderr(`warning: ${deprecation}\n`);
  // Without baseUrl the server's issuer is http://HOST:PORT, which is not https either.
  const insecureIssuer = insecureIssuerWarning(config, io.env);
  if (insecureIssuer)
    io.stderr(`warning: ${insecureIssuer}${baseUrlConfigured(config) ? '' : ' (baseUrl is not set: derived from HOST and PORT)'}\n`);
  return 0;
}

/**
 * The configuration as `serve` loads it, or every problem `serve` would stop on: the loader's (configFrom), then what
 * `serve` refuses after loading it, so that a check run before a deployment predicts its start. Each refusal of
 * `serve` is one line of its own.
 */
async function checkedConfig(
  io: CliIo,
  path: string | undefined,
): Promise<{ config: Readonly<Config> } | { problems: string[]; message: string }> {
  // main.ts stops `serve` on an OTLP protocol it cannot export traces with, before it loads the configuration.
  const traces = requestedTraceProtocol(io.env);
  const refusals = traces !== null && 'error' in traces ? [traces.error] : [];
  let config: Readonly<Config>;
  try {
    config = configFrom(io, path);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    return { problems: [...error.problems, ...refusals], message: [error.message, ...refusals].join('\n') };
  }
  const problems = [missingSessionSecret(config, io.env), await extensionsProblem(config), ...refusals].filter(
    (problem) => problem !== null,
  );
  return problems.length === 0 ? { config } : { problems, message: problems.join('\n') };
}

/**
 * The extensions module as serve loads it (a missing file, an unknown export, a hook that is no function); null when
 * it loads or none is set. Imported only then: the other commands never load the controllers.
 */
async function extensionsProblem({ extensions }: Readonly<Config>): Promise<string | null> {
  if (!extensions) return null;
  const { loadExtensions } = await import('../http/load-extensions.js');
  try {
    await loadExtensions(extensions);
    return null;
  } catch (error) {
    return (error as Error).message;
  }
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
    // A hash too: it can be attacked offline, and this output goes into CI logs and tickets.
    admin: { ...config.admin, password: set(config.admin.password), passwordHash: set(config.admin.passwordHash) },
    keys: { ...config.keys, encryptionKey: set(config.keys.encryptionKey) },
    openid: { ...config.openid, pairwiseSalt: set(config.openid.pairwiseSalt) },
    metrics: { ...config.metrics, token: set(config.metrics.token) },
  };
}
