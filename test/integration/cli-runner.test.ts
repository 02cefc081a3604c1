import { execFile, spawn } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCliHarness, type CliHarness } from '../helpers/cli.js';
import { backend } from '../helpers/test-database.js';

// `npm run cli`'s runner (scripts/cli.mjs, issue 30) as a process: it runs a build of the current sources (made when
// they changed, else reused) with its own arguments, and the command's output and exit code are its own. npm itself
// is left out, because it adds its own lines to stderr.

const ROOT = join(import.meta.dirname, '../..');

describe(`npm run cli's runner as a process (${backend})`, { timeout: 180_000 }, () => {
  let cli: CliHarness;
  const run = (args: string[], stdin = '') =>
    new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
      const env = { PATH: process.env.PATH, HOME: process.env.HOME, ...cli.env };
      const child = execFile(process.execPath, [join(ROOT, 'scripts/cli.mjs'), ...args], { cwd: ROOT, env }, (error, stdout, stderr) =>
        resolve({ code: error ? Number(error.code) : 0, stdout, stderr }),
      );
      child.stdin!.end(stdin);
    });

  beforeAll(async () => {
    cli = await createCliHarness();
  });
  afterAll(() => cli.close());

  it('a reader that closes the pipe early (`apps list | head -1`) ends nothing with a stack trace: exit 0, stderr empty', async () => {
    for (let index = 0; index < 3; index++)
      await cli.run(['apps', 'create', '--name', `Piped ${index}`, '--redirect-uri', 'https://p.example.com/cb']);
    const env = { PATH: process.env.PATH, HOME: process.env.HOME, ...cli.env };
    const child = spawn(process.execPath, [join(ROOT, 'scripts/cli.mjs'), 'apps', 'list', '--json'], { cwd: ROOT, env });
    // Closed before the command writes: its write fails with EPIPE, as when head has read its line and gone.
    child.stdout.destroy();
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
  });

  it('apply -f - --dry-run prints what it would create and exits 0, as the compiled executable does', async () => {
    const file = {
      applications: [{ uid: 'runner-app', name: 'Runner', redirect_uris: ['https://runner.example.com/cb'], confidential: false }],
    };
    const result = await run(['apply', '-f', '-', '--dry-run'], JSON.stringify(file));
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(
      'would create application runner-app\ndry run of -, nothing was changed: 1 created, 0 updated, 0 deleted, 0 revoked, 0 unchanged\n',
    );
  });

  it('a usage error exits 2 with its one line, and --version prints the version of package.json', async () => {
    const result = await run(['apply', '--prune']);
    expect(result).toEqual({ code: 2, stdout: '', stderr: 'oauth-service: missing required option --file\n' });
    expect((await run(['--version'])).stdout).toMatch(/^\d+\.\d+\.\d+\n$/);
  });
});
