// Prints the README's configuration table from src/config/schema.ts (and writes config.schema.json for
// editors). `npm run config:docs`; test/unit/config-docs.test.ts fails when README.md is out of date.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { configSchema } from '../src/config/schema.js';
import { configTable } from '../src/config/docs.js';

const root = join(import.meta.dirname, '..');
writeFileSync(join(root, 'config.schema.json'), `${JSON.stringify(configSchema, null, 2)}\n`);
process.stdout.write(`${configTable()}\n`);
