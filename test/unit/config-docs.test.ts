import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { configTable, configTableIn, replaceConfigTable } from '../../src/config/docs.js';
import { configSchema } from '../../src/config/schema.js';

const root = join(import.meta.dirname, '../..');

describe('configuration documentation', () => {
  it("docs/configuration.md's table is the one generated from the schema (npm run config:docs)", () => {
    const page = readFileSync(join(root, 'docs', 'configuration.md'), 'utf8');
    expect(configTableIn(page)).toBe(configTable());
  });

  it('npm run config:docs replaces only the table between the markers', () => {
    const page = 'intro\n<!-- config-table:start (generated) -->\nold table\n<!-- config-table:end -->\nafter\n';
    expect(replaceConfigTable(page, '| new |')).toBe(
      'intro\n<!-- config-table:start (generated) -->\n| new |\n<!-- config-table:end -->\nafter\n',
    );
    expect(() => replaceConfigTable('no markers', '| new |')).toThrow(/markers/);
  });

  it('config.schema.json is the schema of src/config/schema.ts', () => {
    expect(JSON.parse(readFileSync(join(root, 'config.schema.json'), 'utf8'))).toEqual(JSON.parse(JSON.stringify(configSchema)));
  });

  it('every key of the schema has a description and a default', () => {
    const missing: string[] = [];
    const visit = (properties: Record<string, any>, prefix: string) => {
      for (const [name, node] of Object.entries(properties)) {
        if (name === '$schema') continue;
        if (!node.description || !('default' in node)) missing.push(`${prefix}${name}`);
        if (node.properties) visit(node.properties, `${prefix}${name}.`);
      }
    };
    visit(configSchema.properties, '');
    expect(missing).toEqual([]);
  });
});
