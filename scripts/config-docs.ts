// Rewrites the configuration table of docs/configuration.md from src/config/schema.ts, and config.schema.json for
// editors. `npm run config:docs`; test/unit/config-docs.test.ts fails when either is out of date.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { configSchema } from '../src/config/schema.js';
import { configTable, replaceConfigTable } from '../src/config/docs.js';

const root = join(import.meta.dirname, '..');
writeFileSync(join(root, 'config.schema.json'), `${JSON.stringify(configSchema, null, 2)}\n`);
const page = join(root, 'docs', 'configuration.md');
writeFileSync(page, replaceConfigTable(readFileSync(page, 'utf8'), configTable()));
process.stdout.write(`docs/configuration.md and config.schema.json written from src/config/schema.ts\n`);
