// `oauth-service --json apps list`, `oauth-service --config F apps list`: options every command takes, given before
// the command, are the command's (docs/operations.md "CLI": "before the command too"). A module of its own, without
// imports, because src/main.ts reads it to tell `serve` from a command before anything else loads.

/** The help and the version: options that are commands of their own (cli/index.ts), never serve's. */
export const COMMAND_OPTIONS: ReadonlySet<string> = new Set(['--help', '-h', '--version', '-v']);

/** Leading --json, --config F and --config=F moved after the command they precede; argv as given without one. */
export function leadingOptionsAfterCommand(argv: readonly string[]): string[] {
  let length = 0;
  for (;;) {
    const option = argv[length];
    if (option === '--json' || option?.startsWith('--config=')) length += 1;
    else if (option === '--config') length += 2;
    else break;
  }
  const command = argv[length];
  // Without a command after them they are serve's, as before (serve reads --config, and refuses --json); the help and
  // the version are commands (cli/index.ts).
  if (length === 0 || command === undefined || (command.startsWith('-') && !COMMAND_OPTIONS.has(command))) return [...argv];
  return [command, ...argv.slice(length + 1), ...argv.slice(0, length)];
}
