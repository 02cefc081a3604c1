import type { DocCommand } from './docs-blocks.js';

// Which programs a documented command may call for the docs-as-tests harness to run it, and what each becomes there
// (test/helpers/docs-shims). Anything else is refused by name: the block must then be marked as one that cannot
// run here (docs-blocks.ts), so nothing is skipped without a reason written next to it.
export const RUNNABLE_PROGRAMS: Record<string, string> = {
  'npm run cli': 'the CLI from the checkout (scripts/cli.mjs, as npm runs it)',
  'oauth-service': 'the same CLI, as the image names it',
  'npm start': 'the service, in the background on a free port until the document ends or the next npm start',
  'npm install': 'nothing: the checkout the test runs in is installed',
  echo: 'echo',
  printf: 'printf',
  export: 'export',
  openssl: 'openssl (rand)',
};

/** The programs a command calls: the first word of every pipeline stage, list member and $(...) in it. */
export function programsOf(command: string): string[] {
  const { segments, substitutions } = split(command.replace(/\\\n/g, ' '));
  const programs = segments.map(programOf).filter((program) => program !== '');
  return [...programs, ...substitutions.flatMap(programsOf)];
}

/** The first program of a command that the harness cannot run, or null. */
export function unrunnableProgram(command: DocCommand): string | null {
  return programsOf(command.text).find((program) => !Object.hasOwn(RUNNABLE_PROGRAMS, program)) ?? null;
}

/** Splits at unquoted `|`, `||`, `&&`, `;` and `&`, and collects the bodies of `$(...)`. */
function split(command: string): { segments: string[]; substitutions: string[] } {
  const segments: string[] = [];
  const substitutions: string[] = [];
  let current = '';
  let quote: string | null = null;
  for (let index = 0; index < command.length; index += 1) {
    const char = command[index]!;
    if (quote) {
      if (char === quote) quote = null;
      current += char;
    } else if (char === "'" || char === '"') {
      quote = char;
      current += char;
    } else if (char === '$' && command[index + 1] === '(') {
      const end = closingParenthesis(command, index + 2);
      substitutions.push(command.slice(index + 2, end));
      current += 'X';
      index = end;
    } else if (char === '#' && (current === '' || /\s$/.test(current))) {
      break;
    } else if ('|&;'.includes(char)) {
      segments.push(current);
      current = '';
    } else {
      current += char;
    }
  }
  segments.push(current);
  return { segments, substitutions };
}

function closingParenthesis(command: string, from: number): number {
  let depth = 1;
  for (let index = from; index < command.length; index += 1) {
    if (command[index] === '(') depth += 1;
    if (command[index] === ')' && --depth === 0) return index;
  }
  return command.length;
}

/** The program of one simple command, past its `NAME=value` assignments; npm with its subcommand. */
function programOf(segment: string): string {
  const words = segment.trim().match(/(?:[^\s'"]+|'[^']*'|"[^"]*")+/g) ?? [];
  const rest = words.slice(words.findIndex((word) => !/^[A-Za-z_][A-Za-z0-9_]*=/.test(word)));
  if (rest.length === 0 || words.every((word) => /^[A-Za-z_][A-Za-z0-9_]*=/.test(word))) return '';
  const [program = '', sub = '', script = ''] = rest;
  if (program !== 'npm') return program;
  return sub === 'run' ? `npm run ${script}` : `npm ${sub}`;
}
