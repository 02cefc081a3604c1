import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DPOP_OPTIONS, OPTIONS_OF } from '../../packages/guard/src/option-checks.js';

// The guard refuses an option it does not know (a typo would otherwise be ignored), so its list of names must be the
// options the docs offer: an option added to the docs' table but not to option-checks.ts would fail every API using it.

const DOCS = readFileSync(resolve(import.meta.dirname, '../../docs/protecting-apis.md'), 'utf8');
const FASTIFY_REGISTER_OPTIONS = ['prefix', 'logLevel', 'logSerializers'];

/** The option names in the first cell of each row of the table under `heading` (`name`, `name(args)`, several). */
function namesInTable(heading: RegExp): string[] {
  const table = DOCS.slice(DOCS.search(heading)).split('\n\n')[0]!;
  return table
    .split('\n')
    .slice(1) // the header row
    .filter((line) => line.startsWith('| `'))
    .flatMap((line) => [...line.split(' | ')[0]!.matchAll(/`([A-Za-z]+)/g)].map((match) => match[1]!));
}

describe("the guard's option names", () => {
  it('are the options of the docs table, in every mode together (and Fastify’s own register options)', () => {
    const known = new Set(Object.values(OPTIONS_OF).flat());
    FASTIFY_REGISTER_OPTIONS.forEach((name) => known.delete(name));
    expect([...known].sort()).toEqual([...new Set(namesInTable(/^\| Option \|/m))].sort());
  });

  it('of dpop are the members of its table', () => {
    expect([...DPOP_OPTIONS].sort()).toEqual(namesInTable(/^\| `dpop` member \|/m).sort());
  });
});
