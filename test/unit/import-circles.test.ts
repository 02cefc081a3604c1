import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

// Issue 30: no import circle in src/ or packages/guard/src/. eslint's import-x/no-cycle follows value imports only; a
// circle of type-only imports is still two files that cannot be understood apart (three came in unnoticed), so this
// test reads every static import and re-export, types included, and names any circle it finds.

const ROOT = resolve(import.meta.dirname, '../..');
const FOLDERS = ['src', 'packages/guard/src'];
const STATIC_IMPORT = /(?:^|\n)\s*(?:import|export)\s[^;]*?\sfrom\s+'(\.{1,2}\/[^']+)'/g;

function sourceFiles(folder: string): string[] {
  return readdirSync(join(ROOT, folder), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts'))
    .map((entry) => join(entry.parentPath, entry.name));
}

function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(STATIC_IMPORT)].map((match) => resolve(dirname(file), match[1]!.replace(/\.js$/, '.ts')));
}

/** Every circle, each once, as the files in it from the one first met. */
function circles(graph: Map<string, string[]>): string[][] {
  const found: string[][] = [];
  const state = new Map<string, 'open' | 'done'>();
  const path: string[] = [];
  const visit = (file: string) => {
    state.set(file, 'open');
    path.push(file);
    for (const next of graph.get(file) ?? []) {
      if (!graph.has(next)) continue;
      if (state.get(next) === 'open') found.push(path.slice(path.indexOf(next)));
      else if (state.get(next) === undefined) visit(next);
    }
    path.pop();
    state.set(file, 'done');
  };
  for (const file of graph.keys()) if (state.get(file) === undefined) visit(file);
  return found;
}

describe('import circles', () => {
  it('no file of src/ or packages/guard/src/ imports, through any chain and types included, a file that imports it', () => {
    const files = FOLDERS.flatMap(sourceFiles);
    expect(files.length).toBeGreaterThan(300);
    const graph = new Map(files.map((file) => [file, importsOf(file)]));
    expect([...graph.values()].flat().length).toBeGreaterThan(1000);
    const named = circles(graph).map((circle) => circle.map((file) => relative(ROOT, file)).join(' -> '));
    expect(named).toEqual([]);
  });

  it('finds a circle of type-only imports (the check can fail)', () => {
    const a = resolve(ROOT, 'a.ts');
    const b = resolve(ROOT, 'b.ts');
    expect(
      circles(
        new Map([
          [a, [b]],
          [b, [a]],
        ]),
      ),
    ).toEqual([[a, b]]);
  });
});
