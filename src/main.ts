#!/usr/bin/env node
// The `oauth-service` executable (package.json bin), and the only file that reads process.env and process.argv:
// everything else gets them handed in.
import { runCli } from './cli/index.js';

const exitCode = await runCli(process.argv.slice(2), {
  env: process.env,
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  stdin: process.stdin,
  onSignal: (signal, handler) => process.once(signal, handler),
});
if (exitCode !== null) process.exitCode = exitCode;
