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
// 3. Native addons built for other systems. sodium-native (@fastify/secure-session's) and the bare-* packages it
//    brings ship prebuilds/<platform>-<arch>/ for 13 systems, ~16 MB; require-addon loads the one of the running
//    system (<platform>-<arch>, -musl on Alpine). The install runs on the system the image runs (the Dockerfile's
//    prod-deps stage is built FROM the runtime's Node image), so the others go.
// 4. Source maps and TypeScript declarations (*.map, *.d.ts, *.d.mts, *.d.cts): read by editors, debuggers and tsc,
//    never by Node running the service (without --enable-source-maps Node does not open a map; with it, a missing
//    map leaves that file's stack frames unmapped). ~36 MB, most of it OpenTelemetry's.
import { existsSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { arch, platform } from 'node:process';

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

const host = `${platform}-${arch}`;
let prebuilds = 0;
for (const path of Object.keys(lock.packages)) {
  const dir = join(path, 'prebuilds');
  if (!path.includes('node_modules/') || !existsSync(dir)) continue;
  for (const name of readdirSync(dir)) {
    if (name === host || name.startsWith(`${host}-`)) continue;
    rmSync(join(dir, name), { recursive: true, force: true });
    prebuilds += 1;
  }
}
console.log(`removed ${prebuilds} native addon builds for systems other than ${host}`);

const notRun = /\.(map|d\.[cm]?ts)$/;
let files = 0;
for (const entry of readdirSync('node_modules', { recursive: true, withFileTypes: true })) {
  if (!entry.isFile() || !notRun.test(entry.name)) continue;
  rmSync(join(entry.parentPath ?? entry.path, entry.name));
  files += 1;
}
console.log(`removed ${files} source maps and type declarations`);
