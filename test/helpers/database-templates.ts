import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import type { TestProject } from 'vitest/node';
import { createDatabase, type DatabaseOptions } from '../../src/storage/database.js';
import { migrate } from '../../src/storage/migrate.js';
import { adminQuery, dropDatabase, withDatabaseName } from '../../scripts/lib/postgres-admin.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** An uncompressed dumpDataDir tar of a migrated PGlite; absent on PostgreSQL. */
    pgliteTemplatePath?: string;
    /** The same of a PGlite fresh from initdb, without tables (tests of migrating); absent on PostgreSQL. */
    pgliteEmptyTemplatePath?: string;
    /** A migrated database of the DATABASE_URL server that test databases are copied from; absent on PGlite. */
    postgresTemplateName?: string;
  }
}

/**
 * Vitest globalSetup: initdb and migrations once per run instead of once per test database. Each test database
 * starts as a copy of the run's template (test-database.ts): an in-memory PGlite loaded from a dump, or on
 * PostgreSQL a database made by CREATE DATABASE ... TEMPLATE. No live database is shared between tests.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const serverUrl = process.env.DATABASE_URL;
  return serverUrl ? postgresTemplate(project, serverUrl) : pgliteTemplates(project);
}

async function pgliteTemplates(project: TestProject): Promise<() => Promise<void>> {
  const folder = mkdtempSync(join(tmpdir(), 'oauth-pglite-template-'));
  const remove = async () => rmSync(folder, { recursive: true, force: true });
  try {
    const dataDir = join(folder, 'pgdata');
    const emptyPath = join(folder, 'empty.tar');
    writeFileSync(emptyPath, await dump(dataDir));
    // Database exposes no dump, so the product migrates the folder and a bare PGlite reopens it to dump it.
    await migrated({ databaseUrl: null, dataDir });
    const migratedPath = join(folder, 'migrated.tar');
    writeFileSync(migratedPath, await dump(dataDir));
    project.provide('pgliteEmptyTemplatePath', emptyPath);
    project.provide('pgliteTemplatePath', migratedPath);
  } catch (error) {
    await remove();
    throw error;
  }
  return remove;
}

// The product's own migrations, as every test database would run them.
async function migrated(options: DatabaseOptions): Promise<void> {
  const database = await createDatabase(options);
  try {
    await migrate(database);
  } finally {
    await database.close();
  }
}

// Opening a folder that does not exist yet runs initdb in it.
async function dump(dataDir: string): Promise<Uint8Array> {
  const pglite = await PGlite.create(dataDir);
  try {
    return new Uint8Array(await (await pglite.dumpDataDir('none')).arrayBuffer());
  } finally {
    await pglite.close();
  }
}

// CREATE DATABASE copies a template only while nobody is connected to it: the template is closed before any test
// runs, and nothing but this setup ever opens it.
async function postgresTemplate(project: TestProject, serverUrl: string): Promise<() => Promise<void>> {
  const name = `oauth_template_${randomBytes(6).toString('hex')}`;
  const remove = () => dropDatabase(serverUrl, name);
  await adminQuery(serverUrl, `CREATE DATABASE ${name}`);
  try {
    await migrated({ databaseUrl: withDatabaseName(serverUrl, name), dataDir: 'unused', poolSize: 2 });
  } catch (error) {
    await remove();
    throw error;
  }
  project.provide('postgresTemplateName', name);
  return remove;
}
