// Preloaded into a spawned service (NODE_OPTIONS=--import): writes the URL of every module Node.js's ES module loader
// loads to MODULE_RECORD_FILE, a line each, as it loads, so that a test can say what the process has loaded so far.
// Modules that CommonJS packages require() do not pass the loader's hooks on Node.js 20; their package's own entry,
// imported, does.
import { register } from 'node:module';

const file = process.env.MODULE_RECORD_FILE;
if (file) register(new URL('./module-recorder-hooks.mjs', import.meta.url), { data: { file } });
