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
    const shown = {
      ...config,
      sessionSecret: config.sessionSecret ? '[set]' : null,
      databaseUrl: config.databaseUrl ? '[set]' : null,
      admin: { ...config.admin, password: config.admin.password ? '[set]' : null },
    };
    if (values.json) printJson(io, { valid: true, config: shown });
    else io.stdout(`configuration is valid\n`);
    return 0;
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    if (values.json) printJson(io, { valid: false, problems: error.problems });
    else io.stderr(`${error.message}\n`);
    return 2;
  }
}
