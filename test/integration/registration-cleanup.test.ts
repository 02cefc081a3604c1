import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OAuthDeps } from '../../src/oauth/deps.js';
import { generateSecret } from '../../src/oauth/secrets.js';
import type { ApplicationInput, RegisteredBy } from '../../src/oauth/store.js';
import type { Database } from '../../src/storage/database.js';
import { timestamp } from '../../src/storage/rows.js';
import { createCliHarness, type CliHarness } from '../helpers/cli.js';
import { createCode, createUser } from '../helpers/factories.js';
import { backend } from '../helpers/test-database.js';

// Issue 19: `oauth-service tokens cleanup` also deletes self-registered clients (RFC 7591, Client ID Metadata
// Documents) never issued a token within registration.unusedClientLifetimeSeconds of registering, and says how many.

const HOUR = 3_600_000;
const ago = (ms: number) => new Date(Date.now() - ms);

interface Seeded {
  registeredBy: RegisteredBy;
  createdAt: Date;
  used?: boolean;
  approved?: boolean;
  /** A token row although used_at is NULL (issued before used_at was tracked). */
  tokenWithoutUsedAt?: boolean;
  code?: boolean;
}

async function seed(deps: OAuthDeps, database: Database, row: Seeded): Promise<number> {
  const input: ApplicationInput & { uid: string } = {
    uid: generateSecret(),
    name: `${row.registeredBy} client`,
    secret: null,
    redirectUris: ['https://rp.example/cb'],
    scopes: [],
    confidential: false,
    registeredBy: row.registeredBy,
  };
  const application = await deps.stores.applicationAdmin.create(input);
  await database.sql.query('UPDATE oauth_applications SET created_at = $2 WHERE id = $1', [application.id, timestamp(row.createdAt)]);
  if (row.used) await deps.stores.applicationAdmin.update(application.id, { usedAt: ago(HOUR / 2) });
  if (row.approved) await deps.stores.applicationAdmin.update(application.id, { approvedAt: ago(HOUR / 2) });
  if (row.tokenWithoutUsedAt)
    await deps.stores.accessTokens.create({
      applicationId: application.id,
      resourceOwnerId: null,
      token: generateSecret(),
      refreshToken: null,
      expiresIn: null,
      scopes: [],
      createdAt: ago(HOUR),
      accessGrantId: null,
      refreshFamily: null,
    });
  if (row.code) await createCode(deps, { application, resourceOwnerId: (await createUser(deps)).id });
  return application.id;
}

describe(`tokens cleanup of unused self-registered clients (${backend})`, { timeout: 120_000 }, () => {
  let cli: CliHarness;
  beforeAll(async () => {
    cli = await createCliHarness({ registration: { policy: 'open', unusedClientLifetimeSeconds: 3600 } });
  });
  afterAll(() => cli.close());

  it('deletes dynamic and metadata-document clients unused for longer than the lifetime, and keeps every other', async () => {
    const { keep, stale } = await cli.withDeps(async (deps, database) => {
      const old = ago(2 * HOUR);
      return {
        stale: {
          dynamic: await seed(deps, database, { registeredBy: 'dynamic', createdAt: old }),
          metadataDocument: await seed(deps, database, { registeredBy: 'metadata_document', createdAt: old }),
          withCode: await seed(deps, database, { registeredBy: 'dynamic', createdAt: old, code: true }),
        },
        keep: {
          used: await seed(deps, database, { registeredBy: 'dynamic', createdAt: old, used: true }),
          recent: await seed(deps, database, { registeredBy: 'dynamic', createdAt: ago(HOUR / 2) }),
          adminMade: await seed(deps, database, { registeredBy: 'admin', createdAt: old }),
          approved: await seed(deps, database, { registeredBy: 'dynamic', createdAt: old, approved: true }),
          tokenWithoutUsedAt: await seed(deps, database, { registeredBy: 'metadata_document', createdAt: old, tokenWithoutUsedAt: true }),
        },
      };
    });
    const ids = () => cli.withDeps(async (deps) => new Set((await deps.stores.applicationAdmin.list()).map((app) => app.id)));

    const dryRun = await cli.run(['tokens', 'cleanup', '--dry-run', '--json']);
    expect(dryRun.code).toBe(0);
    expect(JSON.parse(dryRun.stdout)).toMatchObject({ deleted: { unused_clients: 3 }, total: 3, dry_run: true });
    expect((await ids()).size).toBe(8);

    const run = await cli.run(['tokens', 'cleanup', '--batch-size', '2']);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/\n {2}unused clients: +3\n/);
    expect(run.stdout).toMatch(/total: +3\n$/);
    const remaining = await ids();
    for (const [name, id] of Object.entries(keep)) expect(remaining.has(id), `${name} kept`).toBe(true);
    for (const [name, id] of Object.entries(stale)) expect(remaining.has(id), `${name} deleted`).toBe(false);
    // The code of the deleted client went with it.
    const codes = await cli.withDeps(async (_deps, database) => database.sql.query('SELECT id FROM oauth_access_grants'));
    expect(codes).toEqual([]);

    expect(JSON.parse((await cli.run(['tokens', 'cleanup', '--json'])).stdout)).toMatchObject({ deleted: { unused_clients: 0 }, total: 0 });
    expect((await cli.run(['tokens', 'cleanup', '--help'])).stdout).toContain('unused clients           self-registered clients');
  });
});
