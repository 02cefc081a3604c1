import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/processes.js';
import { backend } from '../helpers/test-database.js';

// `npm run fuzz` (docs/security.md "The fuzz run") builds its service with the test helpers, outside Vitest: once
// their test databases came from Vitest's globalSetup, the script stopped at its first line ("Vitest failed to
// access its internal state") and nothing said so. Run here as an operator runs it, without Vitest's environment.
describe(`npm run fuzz runs outside Vitest (${backend})`, () => {
  it('a short run on a fixed seed: requests over the route table, no failure, /readyz 200', async () => {
    const environment = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('VITEST')));
    const { stdout } = await promisify(execFile)(
      join(ROOT, 'node_modules/.bin/tsx'),
      ['scripts/fuzz.ts', '--requests', '200', '--minutes', '1', '--seed', '7'],
      { cwd: ROOT, env: environment, timeout: 50_000 },
    );
    expect(stdout).toContain('fuzzing http://127.0.0.1:');
    expect(stdout).toMatch(/\n200 requests over \d+ routes in \d+ s\n/);
    expect(stdout).toContain('/readyz afterwards: 200');
    expect(stdout).toContain('\n0 failures (replay with --seed 7 --profile default)');
  }, 60_000);
});
