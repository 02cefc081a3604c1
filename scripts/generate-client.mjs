// Generates the Prisma client offline (SPEC 5b) and skips the work when schema.prisma has not changed.
import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const schema = readFileSync(join(root, 'prisma/schema.prisma'));
const prismaVersion = JSON.parse(readFileSync(join(root, 'node_modules/prisma/package.json'), 'utf8')).version;
const fingerprint = createHash('sha256').update(schema).update(prismaVersion).digest('hex');
const stamp = join(root, 'src/storage/generated/.schema-fingerprint');

if (!process.argv.includes('--force') && existsSync(stamp) && readFileSync(stamp, 'utf8') === fingerprint) {
  process.exit(0);
}
execFileSync(process.execPath, [join(root, 'node_modules/prisma/build/index.js'), 'generate'], {
  cwd: root,
  stdio: ['ignore', 'ignore', 'inherit'],
  env: {
    ...process.env,
    PRISMA_SCHEMA_ENGINE_BINARY: join(root, 'scripts/schema-engine-unavailable.sh'),
    PRISMA_HIDE_UPDATE_MESSAGE: '1',
    CHECKPOINT_DISABLE: '1',
  },
});
writeFileSync(stamp, fingerprint);
