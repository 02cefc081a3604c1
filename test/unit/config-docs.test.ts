import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { configTable } from '../../src/config/docs.js';
import { configSchema } from '../../src/config/schema.js';

const root = join(import.meta.dirname, '../..');

describe('configuration documentation', () => {
  it("README.md's configuration table is the one generated from the schema (npm run config:docs)", () => {
    const readme = readFileSync(join(root, 'README.md'), 'utf8');
    const section = /<!-- config-table:start[^>]*-->\n([\s\S]*?)\n<!-- config-table:end -->/.exec(readme);
    expect(section?.[1]).toBe(configTable());
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
