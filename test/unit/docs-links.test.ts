import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

// The README and docs/ link to each other and into the tree: every relative link must reach a file, and every
// #anchor a heading of that file, with GitHub's slugs, so that a moved section or a renamed file fails here instead
// of leaving a reader at a dead end.

const root = join(import.meta.dirname, '..', '..');

/** Markdown text without fenced code blocks and inline code spans, where nothing is a link or a heading. */
function prose(markdown: string): string[] {
  const lines: string[] = [];
  let fence: string | null = null;
  for (const line of markdown.split('\n')) {
    const marker = /^\s*(`{3,}|~{3,})/.exec(line)?.[1];
    if (marker && (fence === null || marker.startsWith(fence))) {
      fence = fence === null ? marker : null;
      lines.push('');
      continue;
    }
    lines.push(fence === null ? line.replace(/(`+)[\s\S]*?\1/g, '') : '');
  }
  return lines;
}

/** The anchors GitHub gives the headings of a Markdown file (github-slugger: duplicates get -1, -2, ...). */
export function headingAnchors(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  let fence: string | null = null;
  for (const line of markdown.split('\n')) {
    const marker = /^\s*(`{3,}|~{3,})/.exec(line)?.[1];
    if (marker && (fence === null || marker.startsWith(fence))) {
      fence = fence === null ? marker : null;
      continue;
    }
    const heading = fence === null ? /^ {0,3}#{1,6}\s+(.*?)\s*#*\s*$/.exec(line)?.[1] : undefined;
    if (heading === undefined) continue;
    const text = heading.replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1').replace(/<[^>]+>/g, '');
    const base = text
      .toLowerCase()
      .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
      .replace(/ /g, '-');
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    anchors.add(count === 0 ? base : `${base}-${count}`);
  }
  return anchors;
}

/** Relative link targets of a Markdown file: inline links, images and reference definitions, outside code. */
export function relativeLinks(markdown: string): string[] {
  const targets: string[] = [];
  for (const line of prose(markdown)) {
    for (const match of line.matchAll(/!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) targets.push(match[1]!);
    const definition = /^ {0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+"[^"]*")?\s*$/.exec(line);
    if (definition) targets.push(definition[1]!);
  }
  return targets.filter((target) => !/^[a-z][a-z0-9+.-]*:/i.test(target));
}

/** The links of `markdown` (the text of `file`) that do not resolve, each with why. */
export function brokenLinks(file: string, markdown = readFileSync(file, 'utf8')): string[] {
  const broken: string[] = [];
  for (const target of relativeLinks(markdown)) {
    const [pathPart, anchor] = target.split('#', 2) as [string, string | undefined];
    const path = pathPart === '' ? file : join(dirname(file), decodeURIComponent(pathPart));
    if (!existsSync(path)) {
      broken.push(`${target}: no such file`);
      continue;
    }
    if (anchor === undefined || anchor === '') continue;
    if (statSync(path).isDirectory() || !path.endsWith('.md')) {
      broken.push(`${target}: an anchor into a file that is not Markdown`);
      continue;
    }
    const headings = headingAnchors(pathPart === '' ? markdown : readFileSync(path, 'utf8'));
    if (!headings.has(decodeURIComponent(anchor))) broken.push(`${target}: no heading #${anchor}`);
  }
  return broken;
}

const documents = [
  join(root, 'README.md'),
  ...readdirSync(join(root, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => join(root, 'docs', name)),
];

describe('links in README.md and docs/', () => {
  it.each(documents.map((file) => relative(root, file)))('every relative link and anchor of %s resolves', (file) => {
    expect(brokenLinks(join(root, file))).toEqual([]);
  });

  it('the README links every document of docs/', () => {
    const linked = new Set(relativeLinks(readFileSync(join(root, 'README.md'), 'utf8')).map((target) => target.split('#')[0]));
    const missing = documents
      .slice(1)
      .map((file) => relative(root, file))
      .filter((file) => !linked.has(file));
    expect(missing).toEqual([]);
  });

  it('no document cites the behaviour sections as "SPEC n" or "the seed" but docs/behaviour.md, which explains them', () => {
    const citing = documents
      .filter((file) => !file.endsWith(join('docs', 'behaviour.md')))
      .filter((file) => /\bSPEC \d|\bthe seed\b/i.test(readFileSync(file, 'utf8')))
      .map((file) => relative(root, file));
    expect(citing).toEqual([]);
  });
});

describe('the link checker', () => {
  it("gives headings GitHub's anchors: code and punctuation dropped, spaces to dashes, duplicates numbered", () => {
    const anchors = headingAnchors(
      [
        '# Operating oauth-service',
        '## 3.1 POST /oauth/token',
        '### `beforeTokenResponse(response, context)`',
        '## The introspection contract ("the seed")',
        '## Notes',
        '## Notes',
        '```sh',
        '# not a heading',
        '```',
      ].join('\n'),
    );
    expect([...anchors]).toEqual([
      'operating-oauth-service',
      '31-post-oauthtoken',
      'beforetokenresponseresponse-context',
      'the-introspection-contract-the-seed',
      'notes',
      'notes-1',
    ]);
  });

  it('finds relative links outside code, and leaves absolute URLs alone', () => {
    const markdown = [
      '[a](docs/a.md#x) ![img](logo.png "title") [web](https://example.com) [mail](mailto:a@b.c)',
      '`[code](nope.md)`',
      '```',
      '[fenced](nope.md)',
      '```',
      '[ref]: ../b.md',
    ].join('\n');
    expect(relativeLinks(markdown)).toEqual(['docs/a.md#x', 'logo.png', '../b.md']);
  });

  it('reports a missing file, a missing heading in another file or in the same one, and accepts what exists', () => {
    const file = join(root, 'docs', 'operations.md');
    const markdown =
      '# Here\n[a](missing.md) [b](security.md#no-such-heading) [c](#nowhere) [d](security.md#the-fuzz-run) [e](#here) [f](../LICENSE) [g](../src/)';
    expect(brokenLinks(file, markdown)).toEqual([
      'missing.md: no such file',
      'security.md#no-such-heading: no heading #no-such-heading',
      '#nowhere: no heading #nowhere',
    ]);
  });
});
