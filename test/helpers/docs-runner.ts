import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../../scripts/lib/ports.js';
import type { DocCommand } from './docs-blocks.js';
import { ROOT } from './processes.js';

// Runs a document's commands in order, as a reader would in a fresh folder: one bash, so `export` and the working
// directory carry from one command to the next, with `npm` and `oauth-service` on PATH as test/helpers/docs-shims
// makes them. Each command's exit code and output are kept apart; the first one that fails ends the document.

const SHIMS = join(ROOT, 'test/helpers/docs-shims');

export interface CommandOutcome {
  command: DocCommand;
  code: number;
  output: string;
}

export interface DocumentRun {
  /** The commands that ran, in order; the last one failed when its code is not 0. */
  outcomes: CommandOutcome[];
  /** What the service `npm start` started printed (empty when none was started). */
  serverLog: string;
}

export async function runDocumentCommands(commands: DocCommand[]): Promise<DocumentRun> {
  const work = mkdtempSync(join(tmpdir(), 'oauth-docs-'));
  const out = join(work, '.docs-test');
  mkdirSync(out);
  try {
    const script = commands
      .map(
        (command, index) =>
          `{\n${command.text}\n} >"$DOCS_TEST_OUT/${index}.out" 2>&1 </dev/null; echo $? >"$DOCS_TEST_OUT/${index}.code"\n` +
          `[ "$(cat "$DOCS_TEST_OUT/${index}.code")" = 0 ] || exit 0\n`,
      )
      .join('');
    await runBash(script, work, {
      PATH: `${SHIMS}:${process.env.PATH}`,
      HOME: process.env.HOME,
      TMPDIR: process.env.TMPDIR,
      DOCS_TEST_ROOT: ROOT,
      DOCS_TEST_SHIMS: SHIMS,
      DOCS_TEST_OUT: out,
      // The quick start as a reader runs it (no DATABASE_URL, no NODE_ENV), on a port no other test uses and its
      // metrics on one of their own.
      PORT: String(await freePort()),
      HOST: '127.0.0.1',
      METRICS_PORT: '0',
      LOG_LEVEL: 'warn',
    });
    const outcomes = commands.flatMap((command, index): CommandOutcome[] => {
      const codeFile = join(out, `${index}.code`);
      if (!existsSync(codeFile)) return [];
      return [{ command, code: Number(readFileSync(codeFile, 'utf8')), output: readFileSync(join(out, `${index}.out`), 'utf8') }];
    });
    const serverLogFile = join(out, 'server.log');
    return { outcomes, serverLog: existsSync(serverLogFile) ? readFileSync(serverLogFile, 'utf8') : '' };
  } finally {
    await stopStartedService(join(out, 'server.pid'));
    rmSync(work, { recursive: true, force: true });
  }
}

function runBash(script: string, cwd: string, env: NodeJS.ProcessEnv): Promise<void> {
  const file = join(cwd, '.docs-test', 'commands.sh');
  writeFileSync(file, script);
  return new Promise((resolve, reject) => {
    const child = spawn('bash', [file], { cwd, env, stdio: 'ignore' });
    child.once('error', reject);
    child.once('close', () => resolve());
  });
}

/** SIGTERM to the service the last `npm start` left running, then SIGKILL if it is still there after 10 s. */
async function stopStartedService(pidFile: string): Promise<void> {
  if (!existsSync(pidFile)) return;
  const pid = Number(readFileSync(pidFile, 'utf8'));
  const alive = () => {
    try {
      process.kill(pid, 0);
      return true;
    } catch {
      return false;
    }
  };
  if (!alive()) return;
  process.kill(pid, 'SIGTERM');
  for (let attempt = 0; attempt < 100 && alive(); attempt += 1) await new Promise((resolve) => setTimeout(resolve, 100));
  if (alive()) process.kill(pid, 'SIGKILL');
}
