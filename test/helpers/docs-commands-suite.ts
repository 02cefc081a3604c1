import { describe, expect, it } from 'vitest';
import { documentationFiles, shellBlocksOfFile } from './docs-blocks.js';
import { RUNNABLE_PROGRAMS, unrunnableProgram } from './docs-programs.js';
import { runDocumentCommands } from './docs-runner.js';
import { ROOT } from './processes.js';
import { backend } from './test-database.js';

// Docs as tests (issue 32): every shell command in README.md and docs/ runs, in order per document, in a fresh
// folder with a fresh data folder, and must exit 0 and print the output a ```console block shows. A block that cannot
// run here carries `<!-- docs-test: skip (why) -->` on the line before it (docs/testing.md); a command calling a
// program the harness does not run fails its document before anything of it runs.
// The documents describe the quick start on the embedded database, so the commands run on PGlite only: on the
// PostgreSQL run of the suite the same documents would only be run a second time.
// The documents are split over test files (docs-commands*.test.ts) so that none of them takes a minute.

/** The suite of the documents `which` picks out of README.md and docs/. */
export function describeDocumentCommands(which: (file: string) => boolean): void {
  const documents = documentationFiles(ROOT)
    .filter(which)
    .map((file) => {
      const blocks = shellBlocksOfFile(ROOT, file);
      return { file, commands: blocks.filter((block) => block.skip === null).flatMap((block) => block.commands) };
    });

  describe('the commands of the README and docs/', () => {
    it.each(documents)(
      '$file: its commands run here (or their block says why not), exit 0 and print what it shows',
      async ({ file, commands }) => {
        const refused = commands.flatMap((command) => {
          const program = unrunnableProgram(command);
          return program === null ? [] : [`${file}:${command.line}: ${program} (in \`${command.text}\`)`];
        });
        expect(
          refused,
          `the harness runs only ${Object.keys(RUNNABLE_PROGRAMS).join(', ')}: ` +
            'make these commands runnable or put <!-- docs-test: skip (why) --> on the line before their block',
        ).toEqual([]);
        if (backend === 'postgresql' || commands.length === 0) return;

        const { outcomes, serverLog } = await runDocumentCommands(commands);
        for (const { command, code, output } of outcomes) {
          const context = `${file}:${command.line}: \`${command.text}\` (exit code ${code}) printed:\n${output}\n--- service log ---\n${serverLog}`;
          expect(code, context).toBe(0);
          for (const expected of command.expectedOutput) expect(output, context).toContain(expected);
        }
        expect(outcomes.map(({ command }) => command.line)).toEqual(commands.map((command) => command.line));
      },
      // The README's ~30 commands are each a process (a service booted on an empty folder among them): 30 s on a quiet
      // machine, twice that on a busy one. The bound is against a hang.
      120_000,
    );
  });
}
