#!/usr/bin/env node
// The `oauth-service` executable (package.json bin), and the only file that reads process.env and process.argv:
// everything else gets them handed in.
import { existsSync } from 'node:fs';
import * as nodeModule from 'node:module';
import { fileURLToPath } from 'node:url';
import { setFlagsFromString } from 'node:v8';
import { COMMAND_V8_FLAGS } from './cli/command-v8-flags.js';
import { COMMAND_OPTIONS, leadingOptionsAfterCommand } from './cli/leading-options.js';
import { requestedTraceProtocol } from './telemetry/trace-protocol.js';

const argv = process.argv.slice(2);
// A command other than `serve` runs for a second at most: V8's optimising compiler would spend more CPU on the
// WebAssembly of PGlite and of Prisma's query compiler than the whole command (issue 30: `apps list` on PostgreSQL
// 0.89 -> 0.54 s, bench/RESULTS.md). Liftoff, V8's baseline WebAssembly compiler, alone serves it; `serve` keeps both.
// Set before anything compiles WebAssembly; the command modules are imported after it. Node.js 24's V8 (the image's)
// no longer honours --liftoff-only set at run time (`apps list` on a PGlite folder 1.07 s instead of 0.62 s). It does
// honour a tiering budget, but the checkpoint of a write in PGlite spends it, and the process then waits at its exit
// for TurboFan (`apps update` 0.82 s instead of 0.47 s): the tier-up filter lets only the function of an index no
// module has tier up. Node.js 20's V8 honours all three.
const command = leadingOptionsAfterCommand(argv)[0];
// A leading option is serve's (`--config`), but for the help and the version (cli/index.ts), which are commands.
const serving = command === undefined || command === 'serve' || (command.startsWith('-') && !COMMAND_OPTIONS.has(command));
if (!serving) setFlagsFromString(COMMAND_V8_FLAGS);
// Compiling the ~200 modules a command loads was a third of its time (issue 30). Node.js 22.1 and later (the image's)
// keep the compiled code on disk and reuse it while a module's source is unchanged, in a folder per Node.js version,
// V8 flags (so the commands' and the service's apart) and user; an unwritable folder only turns the cache off. Node.js
// 20 has no such cache. The image ships the code its service and commands compile (the folder beside dist/, made by
// scripts/warm-compile-cache.sh), so that a new container does not compile it again; elsewhere Node.js keeps it in
// the temporary directory, or in NODE_COMPILE_CACHE, which Node.js itself then enables before this runs.
const { enableCompileCache } = nodeModule as { enableCompileCache?: (directory?: string) => unknown };
const shippedCache = fileURLToPath(new URL('../compile-cache', import.meta.url));
enableCompileCache?.(existsSync(shippedCache) ? shippedCache : undefined);

// Traces (docs/operations.md "Traces"): started before the service's modules load, so pg is instrumented as it loads;
// without an OTLP endpoint nothing of OpenTelemetry is imported.
const chosen = serving ? requestedTraceProtocol(process.env) : null;
if (chosen !== null) {
  if ('error' in chosen) {
    // As a bad config file stops `serve` (exit code 2): an operator who asked for traces learns at once, not from a
    // collector that stays empty.
    process.stderr.write(`oauth-service: ${chosen.error}\n`);
    process.exit(2);
  }
  const { startTracing } = await import('./telemetry/start-tracing.js');
  const tracing = startTracing(chosen.protocol, process.env);
  // After a graceful stop the event loop empties: the spans still buffered are exported before the process exits,
  // which it then does at once (an export still pending towards a silent collector would keep it alive).
  process.once('beforeExit', () => {
    void tracing.shutdown((problem) => process.stderr.write(`oauth-service: ${problem}\n`)).then(() => process.exit());
  });
}

// `oauth-service apps list | head -1`: the reader has gone, which is no failure of the command. What is left to print
// goes nowhere, and the command ends as it would, its database closed, not on Node.js's unhandled 'error' trace.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code !== 'EPIPE') throw error;
});

const { runCli } = await import('./cli/index.js');
const exitCode = await runCli(argv, {
  env: process.env,
  cwd: process.cwd(),
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  stdin: process.stdin,
  onSignal: (signal, handler) => process.once(signal, handler),
});
if (exitCode !== null) process.exitCode = exitCode;
