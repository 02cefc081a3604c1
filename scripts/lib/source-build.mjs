// A build of the current sources for `npm run cli` (scripts/cli.mjs): src/ and packages/guard/src compiled by
// esbuild, one file for one file, into node_modules/.cache/oauth-service-cli/<fingerprint>/, and reused for as long
// as every source has the content it was built from. tsx compiled (or read from its cache) each of ~270 files on
// every start, in a second Node.js process: most of the 8 s a command took in a checkout (issue 30).
//
// The fingerprint is a SHA-256 over every source file's path and content (and the TypeScript settings and esbuild's
// version), read at each start: an edit, a checkout or a regenerated Prisma client gives another build, so a
// command never runs stale code, whatever the files' times say.
import { createHash } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { join, relative } from 'node:path';
import { ROOT } from './generated-client.mjs';

const CACHE = join(ROOT, 'node_modules/.cache/oauth-service-cli');
const SOURCES = ['src', 'packages/guard/src'];
// And what else decides the build's output: its recipe, the TypeScript settings, the tools' versions.
const SETTINGS = [
  'scripts/lib/source-build.mjs',
  'scripts/lib/config-validator-code.mjs',
  'tsconfig.json',
  'node_modules/esbuild/package.json',
  'node_modules/ajv/package.json',
];
// What the compiled files find relative to themselves, as they do from src/ and dist/ (package.json for the
// version and "type": "module", the migrations, the views and their static files, the pages' messages).
const LINKED = ['package.json', 'prisma', 'views', 'public', 'locales'];
// Builds of older sources are removed once unused this long (a long `serve` may still be running from one).
const KEEP_UNUSED_MS = 24 * 3600_000;

/** The path of main.js in a build of the current sources, made first if there is none. */
export async function currentBuild() {
  const files = SOURCES.flatMap((folder) => typeScriptFiles(join(ROOT, folder)));
  const fingerprint = fingerprintOf([...files, ...SETTINGS.map((file) => join(ROOT, file))]);
  const dir = join(CACHE, fingerprint);
  const main = join(dir, 'src/main.js');
  if (existsSync(main)) {
    // Marks the build as in use, for the clean-up of old ones.
    utimesSync(dir, new Date(), new Date());
    return main;
  }
  await build(files, dir);
  removeOldBuilds(fingerprint);
  return main;
}

function typeScriptFiles(folder) {
  return readdirSync(folder, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts'))
    .map((entry) => join(entry.parentPath ?? entry.path, entry.name))
    .sort();
}

function fingerprintOf(paths) {
  const hash = createHash('sha256');
  for (const path of paths)
    hash
      .update(`${relative(ROOT, path)}\0`)
      .update(readFileSync(path))
      .update('\0');
  return hash.digest('hex').slice(0, 32);
}

// Built beside its final place and renamed into it: two commands started at once never run a half-written build.
async function build(files, dir) {
  // Loaded on a change only: a command that reuses a build loads neither (Ajv's code generator takes 40 ms).
  const [{ build: esbuild }, { writeConfigValidator }] = await Promise.all([import('esbuild'), import('./config-validator-code.mjs')]);
  const partial = `${dir}.${process.pid}.partial`;
  rmSync(partial, { recursive: true, force: true });
  mkdirSync(partial, { recursive: true });
  const options = { bundle: false, format: 'esm', platform: 'node', target: 'node20', sourcemap: true, logLevel: 'error' };
  const inFolder = (folder) => files.filter((file) => !relative(join(ROOT, folder), file).startsWith('..'));
  for (const name of LINKED) if (existsSync(join(ROOT, name))) symlinkSync(join(ROOT, name), join(partial, name));
  await esbuild({ ...options, entryPoints: inFolder('src'), outbase: join(ROOT, 'src'), outdir: join(partial, 'src') });
  // As `npm run build` does for dist/: the config schema's validating function, written once instead of at each start.
  await writeConfigValidator(join(partial, 'src/config'));
  // The workspace package as tsconfig's paths resolve it in development (its sources, not its dist/), found by
  // Node.js under this build's own node_modules before the checkout's.
  const guard = join(partial, 'node_modules/@oauth-service/guard');
  await esbuild({ ...options, entryPoints: inFolder('packages/guard/src'), outbase: join(ROOT, 'packages/guard/src'), outdir: guard });
  writeFileSync(join(guard, 'package.json'), JSON.stringify({ name: '@oauth-service/guard', type: 'module', exports: './index.js' }));
  try {
    renameSync(partial, dir);
  } catch (error) {
    // Another command built the same sources meanwhile: use its build.
    rmSync(partial, { recursive: true, force: true });
    if (!existsSync(dir)) throw error;
  }
}

function removeOldBuilds(current) {
  mkdirSync(CACHE, { recursive: true });
  const now = Date.now();
  for (const name of readdirSync(CACHE)) {
    if (name === current) continue;
    const path = join(CACHE, name);
    if (now - statSync(path).mtimeMs > KEEP_UNUSED_MS) rmSync(path, { recursive: true, force: true });
  }
}
