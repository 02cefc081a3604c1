import { PGlite } from '@electric-sql/pglite';
import type { DatabaseOptions } from '../../src/storage/database.js';
import { SMALL_SHARED_BUFFERS } from '../../src/storage/pglite-start-params.js';

// The in-memory PGlite instances of one worker's test databases. Starting one from the run's template costs ~0.35 s of
// CPU (PostgreSQL's start in WebAssembly, the dump unpacked into memory) and a run starts hundreds, while
// emptying a closed test database's instance back to the template takes a few milliseconds. An instance is used again
// only when nothing of its last test is left in it: no transaction open, its session reset (DISCARD ALL: settings,
// prepared statements, advisory locks, temporary tables), its catalog still the template's (a fingerprint of the
// schema, roles, extensions and applied migrations), then every table emptied and every sequence back at its start.
// The test that closed it cannot reach it any more: its Database held a lease that refuses every call once released.

/** A test database's PGlite, and what its Database's close() does with it (database.ts). */
export type PgliteLease = NonNullable<DatabaseOptions['pglite']>;

// PostgreSQL's default 128 MB of shared buffers cost each start ~0.6 s of CPU and as much memory; a test writes a few
// hundred rows, as a CLI command does.
const START_PARAMS = [...PGlite.defaultStartParams, ...SMALL_SHARED_BUFFERS];
/** Instances kept for the next test databases: a file opens one to three at a time. */
const MAX_IDLE = 3;

const idle: PGlite[] = [];
let template: Promise<TemplateShape> | null = null;

interface TemplateShape {
  fingerprint: string;
  /** TRUNCATE of every table but the applied migrations', and every sequence set back to its start. */
  emptying: string;
}

/** An instance that holds the run's migrated template: an idle one emptied back to it, else a new one. */
export async function migratedInstance(dump: Blob): Promise<PgliteLease> {
  const instance = idle.pop() ?? (await startedTemplate(dump));
  const { client, revoke } = lease(instance);
  return {
    instance: client,
    async release() {
      revoke();
      await giveBack(instance);
    },
  };
}

async function startedTemplate(dump: Blob): Promise<PGlite> {
  const instance = await started(dump);
  // Read from a new instance, before any test wrote to it: every new instance is the same copy of the dump.
  template ??= shapeOf(instance);
  await template;
  return instance;
}

/** A new instance from a dump (or from initdb without one), closed with its database. */
export async function newInstance(dump: Blob | undefined): Promise<PgliteLease> {
  const instance = await started(dump);
  return { instance, release: () => instance.close() };
}

function started(dump: Blob | undefined): Promise<PGlite> {
  return PGlite.create('memory://', { loadDataDir: dump, startParams: START_PARAMS });
}

async function giveBack(instance: PGlite): Promise<void> {
  if (idle.length < MAX_IDLE && (await emptied(instance))) idle.push(instance);
  else await instance.close();
}

async function emptied(instance: PGlite): Promise<boolean> {
  try {
    // Refused inside a transaction block: an instance whose test left one open is closed, not used again.
    await instance.exec('DISCARD ALL');
    const shape = await template!;
    if ((await fingerprint(instance)) !== shape.fingerprint) return false;
    await instance.exec(shape.emptying);
    return true;
  } catch {
    return false;
  }
}

async function shapeOf(instance: PGlite): Promise<TemplateShape> {
  const { rows } = await instance.query<{ statement: string }>(EMPTYING);
  return { fingerprint: await fingerprint(instance), emptying: rows.map((row) => row.statement).join('\n') };
}

async function fingerprint(instance: PGlite): Promise<string> {
  const { rows } = await instance.query<{ fingerprint: string }>(FINGERPRINT);
  return rows[0]!.fingerprint;
}

/** Every call refused once revoked, as a closed PGlite refuses them; until then the instance itself answers. */
function lease(instance: PGlite): { client: PGlite; revoke(): void } {
  let revoked = false;
  const client = new Proxy(instance, {
    get(target, property) {
      if (revoked) throw new Error('this test database was closed');
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  return { client, revoke: () => void (revoked = true) };
}

const USER_SCHEMAS = `NOT IN ('pg_catalog', 'information_schema', 'pg_toast')`;

const EMPTYING = `
SELECT format('TRUNCATE %s RESTART IDENTITY CASCADE;', string_agg(format('%I.%I', schemaname, tablename), ', ')) AS statement
  FROM pg_tables WHERE schemaname ${USER_SCHEMAS} AND tablename <> '_prisma_migrations'
UNION ALL
SELECT format('SELECT setval(%L, %s, false);', format('%I.%I', schemaname, sequencename), start_value)
  FROM pg_sequences WHERE schemaname ${USER_SCHEMAS}`;

const FINGERPRINT = `
SELECT md5(concat_ws('|',
  (SELECT string_agg(n.nspname || '.' || c.relname || ':' || c.relkind::text, ',' ORDER BY n.nspname, c.relname)
     FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname ${USER_SCHEMAS}),
  (SELECT string_agg(a.attrelid::regclass::text || '.' || a.attname || ':' || format_type(a.atttypid, a.atttypmod) || ':' ||
          a.attnotnull || ':' || coalesce(pg_get_expr(d.adbin, d.adrelid), ''), ',' ORDER BY a.attrelid::regclass::text, a.attnum)
     FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid JOIN pg_namespace n ON n.oid = c.relnamespace
     LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
     WHERE n.nspname ${USER_SCHEMAS} AND a.attnum > 0 AND NOT a.attisdropped),
  (SELECT string_agg(conrelid::regclass::text || '.' || conname || ':' || pg_get_constraintdef(oid), ',' ORDER BY conrelid::regclass::text, conname)
     FROM pg_constraint WHERE connamespace IN (SELECT oid FROM pg_namespace WHERE nspname ${USER_SCHEMAS})),
  (SELECT string_agg(indexrelid::regclass::text || ':' || pg_get_indexdef(indexrelid), ',' ORDER BY indexrelid::regclass::text)
     FROM pg_index i JOIN pg_class c ON c.oid = i.indrelid JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname ${USER_SCHEMAS}),
  (SELECT string_agg(p.oid::regprocedure::text || ':' || md5(p.prosrc), ',' ORDER BY p.oid::regprocedure::text)
     FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace WHERE n.nspname ${USER_SCHEMAS}),
  (SELECT string_agg(tgrelid::regclass::text || '.' || tgname, ',' ORDER BY tgrelid::regclass::text, tgname) FROM pg_trigger WHERE NOT tgisinternal),
  (SELECT string_agg(typname, ',' ORDER BY typname) FROM pg_type t JOIN pg_namespace n ON n.oid = t.typnamespace WHERE n.nspname ${USER_SCHEMAS}),
  (SELECT string_agg(nspname, ',' ORDER BY nspname) FROM pg_namespace WHERE nspname !~ '^pg_(toast_)?temp_'),
  (SELECT string_agg(rolname || ':' || rolsuper::text || rolcanlogin::text, ',' ORDER BY rolname) FROM pg_roles),
  (SELECT string_agg(extname || ':' || extversion, ',' ORDER BY extname) FROM pg_extension),
  (SELECT count(*) FROM pg_db_role_setting),
  (SELECT string_agg(id || ':' || checksum || ':' || migration_name || ':' || coalesce(finished_at::text, '-') || ':' ||
          coalesce(rolled_back_at::text, '-') || ':' || applied_steps_count, ',' ORDER BY migration_name, id)
     FROM _prisma_migrations)
)) AS fingerprint`;
