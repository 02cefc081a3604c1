import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONFIG_AJV_OPTIONS, configSchemaHash, configValidator, type ConfigValidator } from '../../src/config/config-validator.js';
import { configSchema } from '../../src/config/schema.js';
import { configValidatorCode } from '../../scripts/lib/config-validator-code.mjs';

// Issue 30: the config validator a build writes as code (config-validator.generated.js) must judge every config as
// the schema compiled at start does: the same defaults filled in, the same errors, for the same schema only.

const root = join(import.meta.dirname, '../..');
const fixture = (name: string) => JSON.parse(readFileSync(join(root, name), 'utf8')) as unknown;

const inputs: Array<[string, unknown]> = [
  ['nothing configured', {}],
  ['config.example.json', fixture('config.example.json')],
  ['a misspelled key', fixture('test/fixtures/config/misspelled-key.json')],
  ['wrong types', fixture('test/fixtures/config/wrong-types.json')],
  ['a wrong format and an unknown introspection rule', { baseUrl: 'not a uri', introspection: { allow: [{ rule: 'anyone' }] } }],
];

describe('config validator written as code (scripts/lib/config-validator-code.mjs)', () => {
  let folder: string;
  let generated: { schemaHash: string; default: ConfigValidator };
  let compiled: ConfigValidator;

  beforeAll(async () => {
    // Inside the checkout, as in dist/: the code requires ajv's runtime and ajv-formats from node_modules.
    folder = mkdtempSync(join(root, 'node_modules/.cache/config-validator-test-'));
    const path = join(folder, 'config-validator.generated.mjs');
    writeFileSync(path, configValidatorCode({ options: CONFIG_AJV_OPTIONS, schema: configSchema, schemaHash: configSchemaHash() }));
    generated = (await import(pathToFileURL(path).href)) as typeof generated;
    // No generated file beside the sources: configValidator compiles the schema, as tests and tsx always do.
    compiled = await configValidator();
  });
  afterAll(() => rmSync(folder, { recursive: true, force: true }));

  it.each(inputs)('%s: the same verdict, defaults and errors as the schema compiled at start', (_name, input) => {
    const [byCode, byCompile] = [structuredClone(input), structuredClone(input)];
    expect(generated.default(byCode)).toBe(compiled(byCompile));
    expect(byCode).toEqual(byCompile);
    expect(generated.default.errors ?? null).toEqual(compiled.errors ?? null);
  });

  it('carries the hash of the schema it was written from, which configValidator compares before using it', () => {
    expect(generated.schemaHash).toBe(configSchemaHash());
    expect(generated.schemaHash).toMatch(/^[0-9a-f]{64}$/);
  });
});
