import { parseOptions, UsageError, type CliIo } from './io.js';

/** One `<group> <name>` command: parses its own options (and answers its own --help). */
export type Subcommand = (args: string[], io: CliIo) => Promise<number>;

/**
 * Dispatches `<group> <subcommand> [options]`. `<group> --help` prints the group's usage; a missing or
 * unknown subcommand is a usage error (one line, exit code 2).
 */
export async function runSubcommand(
  group: string,
  help: string,
  subcommands: Record<string, Subcommand>,
  args: string[],
  io: CliIo,
): Promise<number> {
  const [name, ...rest] = args;
  const names = Object.keys(subcommands).join('|');
  if (name === undefined || name.startsWith('-')) {
    const { values } = parseOptions(args, {});
    if (values.help) return (io.stdout(help), 0);
    throw new UsageError(`expected '${group} ${names}' (try '${group} --help')`);
  }
  const subcommand = Object.hasOwn(subcommands, name) ? subcommands[name] : undefined;
  if (!subcommand) throw new UsageError(`unknown subcommand '${group} ${name}': expected ${names} (try '${group} --help')`);
  return subcommand(rest, io);
}

/** The value of a required string option, or a usage error naming it. */
export function required(value: string | undefined, option: string): string {
  if (value === undefined) throw new UsageError(`missing required option --${option}`);
  return value;
}

/** Exactly one positional argument, named in the error when it is missing or there are more. */
export function onePositional(positionals: string[], name: string): string {
  if (positionals.length !== 1) {
    throw new UsageError(positionals.length === 0 ? `missing ${name}` : `unexpected argument '${positionals[1]}'`);
  }
  return positionals[0]!;
}
