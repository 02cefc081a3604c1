import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import type { ErrorObject } from 'ajv/dist/2019.js';
import { configSchema } from './schema.js';
import type { Config } from './types.js';

// The config's JSON Schema as a validating function. Ajv writes that function from the schema and compiles it, which
// cost every CLI command ~130 ms of CPU before it did anything (issue 30, bench/RESULTS.md). So a build writes the
// function's code once, beside this file (config-validator.generated.js, by scripts/lib/config-validator-code.mjs:
// `npm run build` and `npm run cli`'s build of the sources), with the SHA-256 of the schema it was made from; it is
// used only while that is this schema's, and otherwise (tests, tsx, a stale file) the schema is compiled here.

export interface ConfigValidator {
  (data: unknown): data is Config;
  errors?: ErrorObject[] | null;
}

/** How Ajv reads the schema: every error at once, defaults filled in, the introspection rules' discriminator. */
export const CONFIG_AJV_OPTIONS = { allErrors: true, useDefaults: true, strict: false, discriminator: true } as const;

export const configSchemaHash = (): string => createHash('sha256').update(JSON.stringify(configSchema)).digest('hex');

const GENERATED = new URL('./config-validator.generated.js', import.meta.url);

export async function configValidator(): Promise<ConfigValidator> {
  if (existsSync(GENERATED)) {
    const generated = (await import(GENERATED.href)) as { schemaHash: string; default: ConfigValidator };
    if (generated.schemaHash === configSchemaHash()) return generated.default;
  }
  const [{ Ajv2019 }, { default: addFormats }] = await Promise.all([import('ajv/dist/2019.js'), import('ajv-formats')]);
  const ajv = new Ajv2019(CONFIG_AJV_OPTIONS);
  addFormats.default(ajv);
  return ajv.compile<Config>(configSchema);
}
