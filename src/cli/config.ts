import { ConfigError } from '../config/loader.js';
import { configFrom } from './context.js';
import { parseOptions, printJson, UsageError, type CliIo } from './io.js';

const HELP = `Usage: oauth-service config check [--config PATH] [--json]

Loads the configuration (--config PATH, or OAUTH_CONFIG, plus the environment) exactly as the
server does and reports every problem with its key path. Exit code 0 when valid, 2 when not.
`;

export async function runConfigCommand(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseOptions(args, {}, true);
  if (values.help) return (io.stdout(HELP), 0);
  if (positionals[0] !== 'check' || positionals.length > 1) throw new UsageError(`expected 'config check' (try 'config --help')`);
  try {
    const config = configFrom(io, values.config);
    // Secrets and URLs that may hold a password are shown as set or not, never as they are.
    const set = (value: string | null | undefined) => (value ? '[set]' : null);
    const shown = {
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
    if (values.json) printJson(io, { valid: true, config: shown });
    else io.stdout(`configuration is valid\n`);
    for (const deprecation of config.deprecations) io.stderr(`warning: ${deprecation}\n`);
    return 0;
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    if (values.json) printJson(io, { valid: false, problems: error.problems });
    else io.stderr(`${error.message}\n`);
    return 2;
  }
}
