import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, onTestFinished } from 'vitest';

/**
 * A new folder under the system's temp folder, removed when the test that asked for it ends, or, asked for at the top
 * of a file or a describe block, after its tests: each run of the suite would otherwise leave its files behind.
 */
export function temporaryFolder(prefix: string): string {
  const folder = mkdtempSync(join(tmpdir(), `${prefix}-`));
  const remove = () => rmSync(folder, { recursive: true, force: true });
  try {
    onTestFinished(remove);
  } catch {
    // Not inside a test (vitest refuses onTestFinished there): the enclosing suite's end.
    afterAll(remove);
  }
  return folder;
}
