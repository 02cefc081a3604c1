// Generates the Prisma client offline (SPEC 5b), skipping the work when schema.prisma and the Prisma version are
// those it was last generated from. scripts/generate-client.mjs runs it as a step; scripts/cli.mjs calls it in its
// own process, which saves `npm run cli` starting a second Node.js (issue 30).
import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '../..');

/** Runs `prisma generate` unless the client is current (or always, with force). */
export function generateClient({ force = false } = {}) {
  const schema = readFileSync(join(ROOT, 'prisma/schema.prisma'));
  const prismaVersion = JSON.parse(readFileSync(join(ROOT, 'node_modules/prisma/package.json'), 'utf8')).version;
  const fingerprint = createHash('sha256').update(schema).update(prismaVersion).digest('hex');
  const stamp = join(ROOT, 'src/storage/generated/.schema-fingerprint');
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
  writeFileSync(stamp, fingerprint);
}
