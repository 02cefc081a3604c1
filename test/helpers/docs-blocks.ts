import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

// The shell commands of the README and docs/ as the docs-as-tests harness (test/helpers/docs-commands-suite.ts)
// reads them: every ```sh, ```bash, ```shell and ```console block, unless the line before it says why it cannot run
// here (`<!-- docs-test: skip (needs docker) -->`). A command whose program the harness cannot run is an error, so a
// new block is either run or marked, never passed over in silence.

export const SHELL_LANGUAGES = ['sh', 'bash', 'shell', 'console'];

export interface DocCommand {
  /** Line of the command's first line in the Markdown file (1-based). */
  line: number;
  /** The command as the reader types it (continuation lines kept, with their backslashes). */
  text: string;
  /** The output a ```console block shows after it: each line must appear in what the command prints. */
  expectedOutput: string[];
}

export interface DocBlock {
  file: string;
  line: number;
  language: string;
  /** The reason of the skip marker before the block, or null when the block runs. */
  skip: string | null;
  commands: DocCommand[];
}

const SKIP_MARKER = /^\s*<!--\s*docs-test:\s*skip\s*\((.+)\)\s*-->\s*$/;
const ANY_MARKER = /<!--\s*docs-test\b/;

/** The shell blocks of one Markdown file, in order; `file` is the name errors give. */
export function shellBlocks(markdown: string, file: string): DocBlock[] {
  const lines = markdown.split('\n');
  const blocks: DocBlock[] = [];
  let fence: { marker: string; indent: number; block: DocBlock | null; body: string[] } | null = null;
  lines.forEach((line, index) => {
    const opening = /^(\s*)(`{3,}|~{3,})\s*([\w-]*)/.exec(line);
    if (fence === null) {
      if (!opening) return;
      const language = opening[3]!.toLowerCase();
      const block = SHELL_LANGUAGES.includes(language)
        ? { file, line: index + 1, language, skip: skipReason(lines, index, file), commands: [] }
        : null;
      fence = { marker: opening[2]!, indent: opening[1]!.length, block, body: [] };
      return;
    }
    if (opening && opening[2]!.startsWith(fence.marker) && opening[3] === '') {
      if (fence.block) {
        fence.block.commands = commandsOf(fence.body, fence.block.line + 1, fence.block.language === 'console');
        blocks.push(fence.block);
      }
      fence = null;
      return;
    }
    fence.body.push(line.slice(Math.min(fence.indent, line.length - line.trimStart().length)));
  });
  return blocks;
}

/** The reason of a skip marker on the last non-blank line before a fence; a misspelt marker is an error. */
function skipReason(lines: string[], fenceIndex: number, file: string): string | null {
  let index = fenceIndex - 1;
  while (index >= 0 && lines[index]!.trim() === '') index -= 1;
  const previous = index >= 0 ? lines[index]! : '';
  if (!ANY_MARKER.test(previous)) return null;
  const reason = SKIP_MARKER.exec(previous)?.[1]?.trim();
  if (!reason) throw new Error(`${file}:${index + 1}: a docs-test marker reads <!-- docs-test: skip (why it cannot run here) -->`);
  return reason;
}

/**
 * A block's commands. In ```console, a command starts with `$ ` and the lines up to the next one are its output
 * (`...` stands for lines left out); elsewhere every line that is not a comment starts one. A line ending in a
 * backslash continues on the next.
 */
function commandsOf(body: string[], firstLine: number, console: boolean): DocCommand[] {
  const commands: DocCommand[] = [];
  let continuing: DocCommand | null = null;
  body.forEach((line, offset) => {
    if (continuing) {
      continuing.text += `\n${line}`;
    } else if (console && !line.startsWith('$ ')) {
      const output = line.trim();
      if (output !== '' && output !== '...') commands.at(-1)?.expectedOutput.push(output);
      return;
    } else {
      const text = console ? line.slice(2) : line;
      if (text.trim() === '' || text.trimStart().startsWith('#')) return;
      commands.push({ line: firstLine + offset, text, expectedOutput: [] });
      continuing = commands.at(-1)!;
    }
    if (!line.trimEnd().endsWith('\\')) continuing = null;
  });
  return commands;
}

/** README.md and every Markdown file under docs/, as paths relative to the repository root. */
export function documentationFiles(root: string): string[] {
  const underDocs = readdirSync(join(root, 'docs'), { recursive: true, encoding: 'utf8' })
    .filter((path) => path.endsWith('.md'))
    .map((path) => join('docs', path))
    .sort();
  return ['README.md', ...underDocs];
}

export function shellBlocksOfFile(root: string, file: string): DocBlock[] {
  return shellBlocks(readFileSync(join(root, file), 'utf8'), relative(root, join(root, file)));
}
