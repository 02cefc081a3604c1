import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { COMMAND_NAMES, runCli, USAGE } from '../../src/cli/index.js';
import type { CliIo } from '../../src/cli/io.js';

// `oauth-service --help` names every command and every subcommand of a group, as the dispatchers know them (the
// unknown-subcommand error lists a group's own table, runSubcommand), so that the top-level help cannot drift from
// `<group> --help` again.

async function run(argv: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const io: CliIo = {
    env: { OAUTH_CONFIG: 'none' },
    stdout: (text) => void (stdout += text),
    stderr: (text) => void (stderr += text),
    stdin: Readable.from([]),
    onSignal: () => undefined,
  };
  const code = await runCli(argv, io);
  return { code, stdout, stderr };
}

/** The subcommands a group dispatches to, from its unknown-subcommand error; null for a command without any. */
async function subcommandsOf(command: string): Promise<string[] | null> {
  const { code, stderr } = await run([command, 'no-such-subcommand']);
  expect(code).toBe(2);
  const listed = /^oauth-service: unknown subcommand '\S+ no-such-subcommand': expected (\S+) \(try /.exec(stderr);
  return listed ? listed[1]!.split('|') : null;
}

/**
 * The words after the command on its line of the top-level help: `users create|list|...` gives create, list, ...; a
 * list that ends in `|` goes on on the next line.
 */
function usageLineOf(command: string): string[] {
  const lines = USAGE.split('\n');
  const start = lines.findIndex((text) => text.startsWith(`  ${command} `) || text === `  ${command}`);
  expect(start, `the top-level help has no line for ${command}`).toBeGreaterThanOrEqual(0);
  let words = lines[start]!.trim().split(/\s+/)[1] ?? '';
  for (let next = start + 1; words.endsWith('|'); next++) words += lines[next]!.trim().split(/\s+/)[0];
  return words.split('|');
}

describe('oauth-service --help', () => {
  it('names every command the CLI dispatches to', async () => {
    expect((await run(['--help'])).stdout).toBe(USAGE);
    for (const command of COMMAND_NAMES) {
      if (command === 'version') expect(USAGE).toContain("'oauth-service --version'");
      else usageLineOf(command);
    }
  });

  it("names every subcommand of each group, and so does the group's own --help", { timeout: 60_000 }, async () => {
    let groups = 0;
    for (const command of COMMAND_NAMES.filter((name) => name !== 'version')) {
      const subcommands = await subcommandsOf(command);
      if (subcommands === null) continue;
      groups++;
      expect(usageLineOf(command), `the top-level help of ${command}`).toEqual(expect.arrayContaining(subcommands));
      const help = (await run([command, '--help'])).stdout;
      for (const subcommand of subcommands) expect(help, `${command} --help`).toMatch(new RegExp(`(^|[\\s|])${subcommand}([\\s|]|$)`, 'm'));
    }
    // apps, users, resources, tokens, registration-tokens, admin, keys, audit
    expect(groups).toBeGreaterThanOrEqual(8);
  });
});
