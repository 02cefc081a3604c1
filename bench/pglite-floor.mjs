// The floor under every CLI command on a data folder (issue 30): a process that opens DATA_DIR's embedded database
// as a command does (PGlite's module, `PGlite.create` with the commands' V8 flags and start parameters), counts the
// applications and closes it, and does nothing else of the product. Run by `npm run bench:cli -- --floor` in the
// repository's folder, after `npm run build` (it takes the two settings from dist/).
import { setFlagsFromString } from 'node:v8';
import { COMMAND_V8_FLAGS } from '../dist/cli/command-v8-flags.js';
import { SMALL_SHARED_BUFFERS } from '../dist/storage/pglite-start-params.js';

setFlagsFromString(COMMAND_V8_FLAGS);
const { PGlite } = await import('@electric-sql/pglite');
const database = await PGlite.create(process.env.DATA_DIR, { startParams: [...PGlite.defaultStartParams, ...SMALL_SHARED_BUFFERS] });
await database.query('SELECT count(*) FROM oauth_applications');
await database.close();
