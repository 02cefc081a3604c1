import { existsSync, readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

// Issue 30: a CLI command loads what it uses, and loading was a third of its time. What a module loads the moment it
// is imported is its static imports (tsconfig's verbatimModuleSyntax keeps `import { type X }` as an import, drops
// `import type`); dynamic import() is loaded when run. This test follows those from each command's module and names
// the packages reached: the HTTP server, JOSE, the upstream OpenID client and Ajv are for `serve` and for the
// moments a command really signs or validates a JSON Schema, each loaded then by import(). Prisma's runtime and its
// driver adapters are loaded on the first write (prisma-on-first-use.ts): the listings read through plain SQL.

const ROOT = resolve(import.meta.dirname, '../..');
const LOADED_AT_IMPORT =
  /(?:^|\n)\s*(?:import(?!\s+type\s)\s+(?:[^;'"]*?\s+from\s+)?|export(?!\s+type\s)\s[^;'"]*?\s+from\s+)['"]([^'"]+)['"]/g;
const SERVER_ONLY = /^(fastify|@fastify\/.*|jose|openid-client|ajv|ajv-formats|eta|@simplewebauthn\/server|otplib|i18next)$/;
// The generated client imports the runtime's ES module build by its file name (scripts/lib/generated-client.mjs).
const PRISMA_RUNTIME = /^(@prisma\/client\/runtime\/client(\.mjs)?|@prisma\/adapter-pg|pglite-prisma-adapter)$/;

const packageOf = (specifier: string) =>
  (specifier.startsWith('@') ? specifier.split('/').slice(0, 2) : specifier.split('/').slice(0, 1)).join('/');

/** What importing `entry` loads, through every static import: the bare specifiers, node: builtins left out. */
function specifiersLoadedBy(entry: string): Set<string> {
  const specifiers = new Set<string>();
  const seen = new Set<string>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    for (const [, specifier] of readFileSync(file, 'utf8').matchAll(LOADED_AT_IMPORT)) {
      if (specifier!.startsWith('.')) {
        const target = resolve(dirname(file), specifier!.replace(/\.js$/, '.ts'));
        visit(existsSync(target) ? target : target.replace(/\.ts$/, '.js'));
      } else if (!specifier!.startsWith('node:')) {
        specifiers.add(specifier!);
      }
    }
  };
  visit(resolve(ROOT, entry));
  return specifiers;
}

const packagesLoadedBy = (entry: string) => new Set([...specifiersLoadedBy(entry)].map(packageOf));

const COMMANDS = ['migrate', 'config', 'apps', 'users', 'resources', 'tokens', 'registration-tokens', 'admin', 'keys', 'audit', 'apply'];

describe('what a CLI command loads', () => {
  it.each(COMMANDS)('%s: none of the server-only packages at import', (command) => {
    const loaded = [...packagesLoadedBy(`src/cli/${command}.ts`)];
    expect(loaded.filter((name) => SERVER_ONLY.test(name))).toEqual([]);
  });

  it.each(COMMANDS)("%s: not Prisma's runtime nor a driver adapter at import", (command) => {
    const loaded = [...specifiersLoadedBy(`src/cli/${command}.ts`)];
    expect(loaded.filter((specifier) => PRISMA_RUNTIME.test(specifier))).toEqual([]);
  });

  it('serve loads them (the check sees packages)', () => {
    const loaded = packagesLoadedBy('src/cli/serve.ts');
    expect([...loaded].filter((name) => SERVER_ONLY.test(name))).toEqual(expect.arrayContaining(['fastify', 'jose']));
  });

  it("the generated client loads Prisma's runtime (the check sees it)", () => {
    expect([...specifiersLoadedBy('src/storage/generated/client.ts')]).toContain('@prisma/client/runtime/client.mjs');
  });
});
