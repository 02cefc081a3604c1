import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import type { TestProject } from 'vitest/node';
import { createDatabase } from '../../src/storage/database.js';
import { migrate } from '../../src/storage/migrate.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** An uncompressed dumpDataDir tar of a migrated PGlite; absent on PostgreSQL. */
    pgliteTemplatePath?: string;
  }
}

/**
 * Vitest globalSetup: initdb and migrations once per run instead of once per test file. Each test file
 * starts its own in-memory PGlite from this dump (test-database.ts), so no live database is shared.
 */
export default async function setup(project: TestProject): Promise<(() => void) | undefined> {
  if (process.env.DATABASE_URL) return undefined;
  const folder = mkdtempSync(join(tmpdir(), 'oauth-pglite-template-'));
  try {
    const path = join(folder, 'migrated.tar');
    writeFileSync(path, await migratedDump(join(folder, 'pgdata')));
    project.provide('pgliteTemplatePath', path);
  } catch (error) {
    rmSync(folder, { recursive: true, force: true });
    throw error;
  }
  return () => rmSync(folder, { recursive: true, force: true });
}

// Database exposes no dump, so the product migrates a folder and a bare PGlite reopens it to dump it.
async function migratedDump(dataDir: string): Promise<Uint8Array> {
  const database = await createDatabase({ databaseUrl: null, dataDir });
  try {
    await migrate(database);
  } finally {
    await database.close();
  }
  const pglite = await PGlite.create(dataDir);
  try {
    return new Uint8Array(await (await pglite.dumpDataDir('none')).arrayBuffer());
  } finally {
    await pglite.close();
  }
}
