import { readFileSync } from 'node:fs';
import { parseOptions, printJson, UsageError, type CliIo } from './io.js';
import { leadingOptionsAfterCommand } from './leading-options.js';

export const USAGE = `Usage: oauth-service <command> [options]

Commands:
  serve                 start the service (default)
  migrate               apply pending database migrations
  config check          validate the configuration and print the result
  apps create|list|show|update|delete|rotate-secret|approve|disable|enable
                        manage OAuth applications; approve, disable or enable one as the admin pages do
  users create|list|show|update|set-password|disable|enable|delete|revoke-tokens|
        set-mfa|reset-second-factor|reset-passkeys|identities|remove-identity
                        manage the local users who log in, their OpenID Connect claims, their second
                        factor, their passkeys and their sign-in identities
  resources create|list|show|update|delete
                        manage the APIs registered as resources (RFC 8707): scopes, token format, lifetime
  tokens cleanup        delete stale tokens and codes in bounded batches
  registration-tokens create|list|revoke
                        manage the initial access tokens of registration.policy initialAccessToken (RFC 7591)
  admin hash-password   print the argon2id hash of an admin password read from stdin
  keys list|rotate|retire|rewrap
                        manage the keys that sign ID tokens, and the KEY_ENCRYPTION_KEY they are stored under
  audit list            the audit trail: sign-ins, lockouts, consent, revocations and admin changes
  apply -f FILE [--dry-run] [--prune]
                        create or update the applications, users, resources and registration tokens a
                        JSON file declares, in one transaction

Every command takes --config PATH (or OAUTH_CONFIG; else ./config.json when it exists; 'none' for no file),
--json and --help.
Run 'oauth-service <command> --help' for its options; 'oauth-service --version' prints the version.
`;

type Command = (args: string[], io: CliIo) => Promise<number | null>;

// Each command's module is loaded only when it runs (issue 30): `apps list` never loads fastify and the routes
// that `serve` needs, and `--help` loads no database driver.
const COMMANDS: Record<string, () => Promise<Command>> = {
  serve: async () => (await import('./serve.js')).runServeCommand,
  migrate: async () => (await import('./migrate.js')).runMigrateCommand,
  config: async () => (await import('./config.js')).runConfigCommand,
  apps: async () => (await import('./apps.js')).runAppsCommand,
  users: async () => (await import('./users.js')).runUsersCommand,
  resources: async () => (await import('./resources.js')).runResourcesCommand,
  tokens: async () => (await import('./tokens.js')).runTokensCommand,
  'registration-tokens': async () => (await import('./registration-tokens.js')).runRegistrationTokensCommand,
  admin: async () => (await import('./admin.js')).runAdminCommand,
  keys: async () => (await import('./keys.js')).runKeysCommand,
  audit: async () => (await import('./audit.js')).runAuditCommand,
  apply: async () => (await import('./apply.js')).runApplyCommand,
  version: async () => printVersion,
};

/** Every command `runCli` dispatches to (the top-level help must name each: test/unit/cli-help.test.ts). */
export const COMMAND_NAMES: readonly string[] = Object.keys(COMMANDS);

/** The version of package.json, two folders up from src/cli and from dist/cli alike. */
export function packageVersion(): string {
  const manifest = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
  return manifest.version;
}

/** `--version`: the version alone, or with --json as every command's --json is, a JSON document. */
async function printVersion(args: string[], io: CliIo): Promise<number> {
  const { values } = parseOptions(args, {});
  if (values.json) printJson(io, { version: packageVersion() });
  else io.stdout(`${packageVersion()}\n`);
  return 0;
}

/**
 * Runs one CLI command. Resolves with the exit code, or null for `serve`, which keeps running until a
 * signal. Bad arguments: one line on stderr and exit code 2 (SPEC 2).
 */
export async function runCli(given: string[], io: CliIo): Promise<number | null> {
  const argv = leadingOptionsAfterCommand(given);
  const [first, ...rest] = argv;
  if (first === '--help' || first === '-h' || first === 'help') {
    io.stdout(USAGE);
    return 0;
  }
  const [name, args] =
    first === '--version' || first === '-v'
      ? ['version', rest]
      : first === undefined || first.startsWith('-')
        ? ['serve', argv]
        : [first, rest];
  const load = Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
  try {
    if (!load) throw new UsageError(`unknown command '${name}' (try --help)`);
    const command = await load();
    return await command(args, io);
  } catch (error) {
    if (error instanceof UsageError) {
      io.stderr(`oauth-service: ${error.message}\n`);
      return 2;
    }
    // Imported on this error path only: the loader brings the config's validator, which --help does not need.
    const { ConfigError } = await import('../config/loader.js');
    if (error instanceof ConfigError) {
      io.stderr(`oauth-service: ${error.message}\n`);
      return 2;
    }
    io.stderr(`oauth-service: ${(error as Error).message}\n`);
    return 1;
  }
}
