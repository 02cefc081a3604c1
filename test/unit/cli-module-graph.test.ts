import { existsSync, readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

// Issue 30: a CLI command loads what it uses, and loading was a third of its time. What a module loads the moment it
// is imported is its static imports (tsconfig's verbatimModuleSyntax keeps `import { type X }` as an import, drops
// `import type`); dynamic import() is loaded when run. This test follows those from each command's module and names
// the packages reached: the HTTP server, JOSE, the upstream OpenID client and Ajv are for `serve` and for the
// moments a command really signs or validates a JSON Schema, each loaded then by import().

const ROOT = resolve(import.meta.dirname, '../..');
const LOADED_AT_IMPORT = /(?:^|\n)\s*(?:import(?!\s+type\s)\s+(?:[^;'"]*?\s+from\s+)?|export(?!\s+type\s)\s[^;'"]*?\s+from\s+)'([^']+)'/g;
const SERVER_ONLY = /^(fastify|@fastify\/.*|jose|openid-client|ajv|ajv-formats|eta|@simplewebauthn\/server|otplib|i18next)$/;

/** The packages (bare specifiers, node: builtins left out) that importing `entry` loads, through every static import. */
function packagesLoadedBy(entry: string): Set<string> {
  const packages = new Set<string>();
  const seen = new Set<string>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    for (const [, specifier] of readFileSync(file, 'utf8').matchAll(LOADED_AT_IMPORT)) {
      if (specifier!.startsWith('.')) {
        const target = resolve(dirname(file), specifier!.replace(/\.js$/, '.ts'));
        visit(existsSync(target) ? target : target.replace(/\.ts$/, '.js'));
      } else if (!specifier!.startsWith('node:')) {
        packages.add(specifier!.startsWith('@') ? specifier!.split('/').slice(0, 2).join('/') : specifier!.split('/')[0]!);
      }
    }
  };
  visit(resolve(ROOT, entry));
  return packages;
}

const COMMANDS = ['migrate', 'config', 'apps', 'users', 'resources', 'tokens', 'registration-tokens', 'admin', 'keys', 'audit', 'apply'];

describe('what a CLI command loads', () => {
  it.each(COMMANDS)('%s: none of the server-only packages at import', (command) => {
    const loaded = [...packagesLoadedBy(`src/cli/${command}.ts`)];
    expect(loaded.filter((name) => SERVER_ONLY.test(name))).toEqual([]);
  });

  it('serve loads them (the check sees packages)', () => {
    const loaded = packagesLoadedBy('src/cli/serve.ts');
    expect([...loaded].filter((name) => SERVER_ONLY.test(name))).toEqual(expect.arrayContaining(['fastify', 'jose']));
  });
});
