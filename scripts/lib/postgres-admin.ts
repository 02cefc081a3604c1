import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';

/** Runs one statement on its own connection (CREATE/DROP DATABASE cannot run inside a pool's transaction). */
export async function adminQuery(serverUrl: string, text: string): Promise<void> {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    await client.query(text);
  } finally {
    await client.end();
  }
}

export function withDatabaseName(url: string, name: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${name}`;
  return parsed.toString();
}

/**
 * DROP DATABASE ... WITH (FORCE), retried while an autovacuum worker is in the database: PostgreSQL 15
 * refuses to terminate one for a role that is not a superuser (42501, "must be a member of the role whose
 * process is being terminated"), and a worker that does not exit in time leaves the database in use (55006).
 * The worker is done with a test database within moments.
 */
export async function dropDatabase(serverUrl: string, name: string): Promise<void> {
  const retryable = new Set(['42501', '55006']);
  for (let attempt = 1; ; attempt++) {
    try {
      await adminQuery(serverUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      return;
    } catch (error) {
      const code = (error as { code?: string }).code;
      if (!code || !retryable.has(code) || attempt === 50) throw error;
      await sleep(200);
    }
  }
}
