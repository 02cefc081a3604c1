import { parseArgs, type ParseArgsConfig } from 'node:util';
import { withControlCharactersEscaped } from '../oauth/control-characters.js';

/** What a command may touch of the outside world; main.ts supplies the real process. */
export interface CliIo {
  env: Record<string, string | undefined>;
  /** The working directory, where ./config.json is looked for (issue 32); process.cwd() when absent. */
  cwd?: string;
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  stdin: NodeJS.ReadableStream & { isTTY?: boolean };
  onSignal: (signal: 'SIGTERM' | 'SIGINT', handler: () => void) => void;
}

/** Bad arguments: a one-line message and exit code 2 (SPEC 2). */
export class UsageError extends Error {}

type Options = NonNullable<ParseArgsConfig['options']>;

export const COMMON_OPTIONS = {
  help: { type: 'boolean', short: 'h' },
  json: { type: 'boolean' },
  config: { type: 'string', short: 'c' },
} as const satisfies Options;

type ParsedOptions<T extends Options> = ReturnType<
  typeof parseArgs<{ args: string[]; options: typeof COMMON_OPTIONS & T; strict: true; allowPositionals: boolean }>
>;

/** parseArgs in strict mode with the usage errors rephrased as one line. */
export function parseOptions<T extends Options>(args: string[], options: T, allowPositionals = false): ParsedOptions<T> {
  const all = { ...COMMON_OPTIONS, ...options };
  let parsed: ParsedOptions<T> & { tokens: ReturnType<typeof parseArgs>['tokens'] };
  try {
    parsed = parseArgs({ args: withNegativeValues(args, all), options: all, strict: true, allowPositionals, tokens: true });
  } catch (error) {
    throw new UsageError((error as Error).message.split('\n')[0]!.replace(/^TypeError \[\w+\]: /, ''));
  }
  // parseArgs keeps the last of a value given twice: `apply -f a.json -f b.json` would apply b alone, silently.
  const seen = new Set<string>();
  for (const token of parsed.tokens ?? []) {
    if (token.kind !== 'option' || all[token.name]?.type !== 'string' || all[token.name]?.multiple) continue;
    if (seen.has(token.name)) throw new UsageError(`Option '--${token.name}' is given more than once: give it once.`);
    seen.add(token.name);
  }
  return parsed;
}

// No option is named after a digit, so "-5" after an option that takes a value can only be that value.
const NEGATIVE_NUMBER = /^-[0-9]/;

/**
 * `--limit -3` as `--limit=-3`: parseArgs calls a value that starts with a dash "ambiguous", which says nothing of
 * what is wrong; given as the value, the option's own check names the problem ("--limit must be a whole number from
 * 1 to 500, not '-3'"). Arguments after `--` are positionals and stay as they are.
 */
function withNegativeValues(args: string[], options: Options): string[] {
  const byShort = new Map(Object.entries(options).flatMap(([name, option]) => (option.short ? [[option.short, name]] : [])));
  const result: string[] = [];
  for (let index = 0; index < args.length; index++) {
    const arg = args[index]!;
    if (arg === '--') return [...result, ...args.slice(index)];
    const name = arg.startsWith('--') ? arg.slice(2) : /^-[^-]$/.test(arg) ? byShort.get(arg[1]!) : undefined;
    const next = args[index + 1];
    const takesValue = name !== undefined && Object.hasOwn(options, name) && options[name]!.type === 'string';
    if (takesValue && next !== undefined && NEGATIVE_NUMBER.test(next)) {
      result.push(`--${name}=${next}`);
      index++;
    } else result.push(arg);
  }
  return result;
}

export function printJson(io: CliIo, value: unknown): void {
  io.stdout(`${JSON.stringify(value, null, 2)}\n`);
}

/**
 * A plain text table: one row a line, columns padded. Every cell's control characters are escaped: a cell may hold
 * text a stranger typed (a failed sign-in's user name in the audit trail), whose CR, LF or escape sequences would
 * otherwise rewrite or add rows on the operator's terminal.
 */
export function printTable(io: CliIo, header: string[], cells: string[][]): void {
  const rows = cells.map((row) => row.map(withControlCharactersEscaped));
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => (row[column] ?? '').length)));
  const line = (cells: string[]) =>
    cells
      .map((cell, column) => cell.padEnd(widths[column]!))
      .join('  ')
      .trimEnd();
  io.stdout(`${[line(header), ...rows.map(line)].join('\n')}\n`);
}

/** Standard input's bytes, to its end (decoded by the caller, which decides what a byte that is no UTF-8 means). */
export async function readStdin(io: CliIo): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of io.stdin) chunks.push(Buffer.from(chunk as Buffer));
  return Buffer.concat(chunks);
}
