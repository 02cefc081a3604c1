import { parseArgs, type ParseArgsConfig } from 'node:util';

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
  try {
    return parseArgs({ args, options: { ...COMMON_OPTIONS, ...options }, strict: true, allowPositionals });
  } catch (error) {
    throw new UsageError((error as Error).message.split('\n')[0]!.replace(/^TypeError \[\w+\]: /, ''));
  }
}

export function printJson(io: CliIo, value: unknown): void {
  io.stdout(`${JSON.stringify(value, null, 2)}\n`);
}

/** A plain text table: one row a line, columns padded. */
export function printTable(io: CliIo, header: string[], rows: string[][]): void {
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => (row[column] ?? '').length)));
  const line = (cells: string[]) =>
    cells
      .map((cell, column) => cell.padEnd(widths[column]!))
      .join('  ')
      .trimEnd();
  io.stdout(`${[line(header), ...rows.map(line)].join('\n')}\n`);
}

export async function readStdin(io: CliIo): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of io.stdin) chunks.push(Buffer.from(chunk as Buffer));
  return Buffer.concat(chunks).toString('utf8');
}
