// `npm run cli -- <command>`: the ops CLI from the current sources of a checkout (issue 30). Generates the Prisma
// client when the schema changed, reuses or makes the build of the sources (lib/source-build.mjs), and runs its
// main.js in this process, with this process's arguments, as `node dist/main.js <command>` would.
import { pathToFileURL } from 'node:url';
import { generateClient } from './lib/generated-client.mjs';
import { currentBuild } from './lib/source-build.mjs';

generateClient();
await import(pathToFileURL(await currentBuild()).href);
