// Removes from a production install (`npm ci --omit=dev`) what the service never runs. Run in the install's
// folder, after dist/ is there: `node scripts/prune-production-install.mjs` (Dockerfile and .ci/run, the same step).
//
// 1. Build tools. @prisma/client declares the Prisma CLI and TypeScript as optional peer dependencies. Because the
//    root lists them as dev dependencies, npm flags them, and everything they pull in (Prisma Studio, @prisma/dev,
//    effect, ...), "devOptional" in package-lock.json: dev for the root, optional for production. --omit=dev keeps
//    those; --omit=optional would drop them but also @node-rs/argon2's prebuilt binary, an optional platform package.
// 2. Other databases' query compilers. @prisma/client/runtime ships one WebAssembly query compiler per database
//    (and per size, as .js and .mjs). The generated client, compiled into dist/, imports the one it uses by name;
//    the runtime loads no other.
import { existsSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';

const lock = JSON.parse(readFileSync('package-lock.json', 'utf8'));
let removed = 0;
for (const [path, entry] of Object.entries(lock.packages)) {
  if (!entry.devOptional || !path.includes('node_modules/') || !existsSync(path)) continue;
  rmSync(path, { recursive: true, force: true });
  removed += 1;
}
// The executables of the removed packages (prisma, tsc, ...) would be dangling links.
const bin = 'node_modules/.bin';
for (const name of existsSync(bin) ? readdirSync(bin) : []) {
  if (!existsSync(join(bin, name))) rmSync(join(bin, name), { force: true });
}
console.log(`removed ${removed} packages only the build uses (devOptional in package-lock.json)`);

const compilerImport = /@prisma\/client\/runtime\/(query_compiler_[\w.-]+)/g;
const imported = new Set();
const scan = (dir) => {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) scan(path);
    else if (name.endsWith('.js')) for (const match of readFileSync(path, 'utf8').matchAll(compilerImport)) imported.add(match[1]);
  }
};
scan('dist/storage/generated');
if (imported.size === 0) {
  // The generated client loads its query compiler differently now: find out how before removing any.
  console.error('dist/storage/generated imports no @prisma/client/runtime/query_compiler_* file; nothing pruned there');
  process.exit(1);
}
const runtime = 'node_modules/@prisma/client/runtime';
const unused = readdirSync(runtime).filter((name) => name.startsWith('query_compiler_') && !imported.has(name));
for (const name of unused) rmSync(join(runtime, name));
console.log(`removed ${unused.length} query compilers of other databases; kept ${[...imported].sort().join(', ')}`);
