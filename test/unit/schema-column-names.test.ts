import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { columnOf } from '../../src/storage/rows.js';

// The repositories' raw SQL names a column after its field (rows.ts selectList), so every scalar field of
// prisma/schema.prisma must be stored under its name in snake_case.
const schema = readFileSync(join(import.meta.dirname, '../../prisma/schema.prisma'), 'utf8');
const SCALARS = ['String', 'Int', 'BigInt', 'Boolean', 'DateTime'];

const scalarFields = [...schema.matchAll(/^model (\w+) \{\n([\s\S]*?)^\}/gm)].flatMap(([, model, body]) =>
  body!
    .split('\n')
    .map((line) => /^\s+(\w+)\s+(\w+)\??\s*(.*)$/.exec(line.replace(/\/\/.*$/, '')))
    .filter((field): field is RegExpExecArray => field !== null && SCALARS.includes(field[2]!))
    .map((field) => ({ field: `${model}.${field[1]}`, name: field[1]!, column: /@map\("(\w+)"\)/.exec(field[3]!)?.[1] ?? field[1]! })),
);

describe('prisma/schema.prisma column names', () => {
  it('has the scalar fields of the four models', () => {
    expect(scalarFields.length).toBeGreaterThanOrEqual(38);
  });

  it.each(scalarFields)('$field is stored in the column named after it in snake_case', ({ name, column }) => {
    expect(column).toBe(columnOf(name));
  });
});
