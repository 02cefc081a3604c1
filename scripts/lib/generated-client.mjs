// Generates the Prisma client offline (SPEC 5b), skipping the work when schema.prisma and the Prisma version are
// those it was last generated from. scripts/generate-client.mjs runs it as a step; scripts/cli.mjs calls it in its
// own process, which saves `npm run cli` starting a second Node.js (issue 30).
import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '../..');
const GENERATED = join(ROOT, 'src/storage/generated');

// Prisma's package maps its runtime, under Node.js, to its CommonJS build even for an import: Node.js then lexes the
// 200 kB file for its exports and loads it and its dependencies through the CommonJS loader, 60 ms of every command
// that writes (issue 30, bench/RESULTS.md). The generated client imports the ES module build instead, by its file name
// (the package exports every file). Part of the fingerprint: a client generated before this rewrite is generated again.
const RUNTIME = '"@prisma/client/runtime/client"';
const RUNTIME_AS_MODULE = '"@prisma/client/runtime/client.mjs"';

/** Runs `prisma generate` unless the client is current (or always, with force). */
export function generateClient({ force = false } = {}) {
  const schema = readFileSync(join(ROOT, 'prisma/schema.prisma'));
  const prismaVersion = JSON.parse(readFileSync(join(ROOT, 'node_modules/prisma/package.json'), 'utf8')).version;
  const fingerprint = createHash('sha256').update(schema).update(prismaVersion).update(RUNTIME_AS_MODULE).digest('hex');
  const stamp = join(GENERATED, '.schema-fingerprint');
  if (!force && existsSync(stamp) && readFileSync(stamp, 'utf8') === fingerprint) return;
  execFileSync(process.execPath, [join(ROOT, 'node_modules/prisma/build/index.js'), 'generate'], {
    cwd: ROOT,
    stdio: ['ignore', 'ignore', 'inherit'],
    env: {
      ...process.env,
      PRISMA_SCHEMA_ENGINE_BINARY: join(ROOT, 'scripts/schema-engine-unavailable.sh'),
      PRISMA_HIDE_UPDATE_MESSAGE: '1',
      CHECKPOINT_DISABLE: '1',
    },
  });
  importRuntimeAsModule(GENERATED);
  writeFileSync(stamp, fingerprint);
}

/** Every generated file's import of Prisma's runtime (types included, so that both name one declaration) as ESM. */
function importRuntimeAsModule(folder) {
  for (const entry of readdirSync(folder, { withFileTypes: true })) {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) importRuntimeAsModule(path);
    else if (entry.name.endsWith('.ts')) {
      const source = readFileSync(path, 'utf8');
      if (source.includes(RUNTIME)) writeFileSync(path, source.replaceAll(RUNTIME, RUNTIME_AS_MODULE));
    }
  }
}
