import { describe, expect, it } from 'vitest';
import { shellBlocks } from '../helpers/docs-blocks.js';
import { programsOf, unrunnableProgram } from '../helpers/docs-programs.js';

// How the docs-as-tests harness (test/helpers/docs-commands-suite.ts) reads Markdown: which blocks run, which
// commands and expected output they hold, and which programs it refuses to run.

const fence = '```';

describe('shell blocks of a Markdown file', () => {
  it('reads sh, bash and console blocks with their lines, leaves other languages out', () => {
    const markdown = [
      '# Title',
      `${fence}sh`,
      'npm run cli -- apps list   # every application',
      '# a comment line',
      'echo one \\',
      '  two',
      fence,
      `${fence}json`,
      '{ "a": 1 }',
      fence,
      `${fence}console`,
      '$ oauth-service --help',
      'Usage: oauth-service <command> [options]',
      '...',
      '  apps create|list',
      fence,
    ].join('\n');
    const blocks = shellBlocks(markdown, 'doc.md');
    expect(blocks.map((block) => [block.line, block.language, block.skip])).toEqual([
      [2, 'sh', null],
      [11, 'console', null],
    ]);
    expect(blocks[0]!.commands).toEqual([
      { line: 3, text: 'npm run cli -- apps list   # every application', expectedOutput: [] },
      { line: 5, text: 'echo one \\\n  two', expectedOutput: [] },
    ]);
    expect(blocks[1]!.commands).toEqual([
      { line: 12, text: 'oauth-service --help', expectedOutput: ['Usage: oauth-service <command> [options]', 'apps create|list'] },
    ]);
  });

  it('takes the skip marker on the line before a block (blank lines between), indented blocks dedented', () => {
    const markdown = [
      '1. Step:',
      '',
      '   <!-- docs-test: skip (needs docker) -->',
      '',
      `   ${fence}sh`,
      '   docker compose up --build',
      `   ${fence}`,
    ].join('\n');
    const [block] = shellBlocks(markdown, 'doc.md');
    expect(block!.skip).toBe('needs docker');
    expect(block!.commands[0]!.text).toBe('docker compose up --build');
  });

  it('refuses a marker without a reason or misspelt, naming the file and line', () => {
    expect(() => shellBlocks(['<!-- docs-test: skip -->', `${fence}sh`, 'docker ps', fence].join('\n'), 'doc.md')).toThrow(
      'doc.md:1: a docs-test marker reads <!-- docs-test: skip (why it cannot run here) -->',
    );
    expect(() => shellBlocks(['<!-- docs-test: skp (docker) -->', `${fence}sh`, 'docker ps', fence].join('\n'), 'doc.md')).toThrow(
      'doc.md:1',
    );
  });
});

describe('the programs a documented command calls', () => {
  it('finds every stage of pipes and lists, past assignments, and inside $(...)', () => {
    expect(programsOf("echo 'a | b' | npm run cli -- users create --username alice")).toEqual(['echo', 'npm run cli']);
    expect(programsOf("ADMIN_PASSWORD='x y' npm start")).toEqual(['npm start']);
    expect(programsOf('export KEY=$(openssl rand -hex 32) OTHER=1   # keep it')).toEqual(['export', 'openssl']);
    expect(programsOf('npm ci && docker compose up --build; curl https://example.com')).toEqual(['npm ci', 'docker', 'curl']);
  });

  it('refuses what the harness does not run: docker, curl, the test suites, npm pack', () => {
    const unrunnable = (text: string) => unrunnableProgram({ line: 1, text, expectedOutput: [] });
    expect(unrunnable('docker compose up --build')).toBe('docker');
    expect(unrunnable('npm test')).toBe('npm test');
    expect(unrunnable('npm pack --workspace @oauth-service/guard')).toBe('npm pack');
    expect(unrunnable('npm run cli -- apps list | curl -d @- https://example.com')).toBe('curl');
    expect(unrunnable("echo 'a long password' | npm run cli -- users create --username alice")).toBeNull();
    expect(unrunnable('oauth-service keys list')).toBeNull();
  });
});
