import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backend, createTestDatabase, type TestDatabase } from '../helpers/test-database.js';

// SPEC 5b: migrations are hand-written SQL; this proves the migrated database is what schema.prisma declares.

interface DeclaredModel {
  table: string;
  columns: Map<string, { nullable: boolean }>;
  indexes: Map<string, { unique: boolean }>;
}

function parseSchema(text: string): DeclaredModel[] {
  const models: DeclaredModel[] = [];
  for (const [, body] of text.matchAll(/^model \w+ \{\n([\s\S]*?)^\}/gm)) {
    const model: DeclaredModel = { table: '', columns: new Map(), indexes: new Map() };
    for (const raw of body!.split('\n')) {
      const line = raw.replace(/\/\/.*$/, '').trim();
      const table = /^@@map\("(\w+)"\)/.exec(line);
      if (table) model.table = table[1]!;
      const index = /^@@(index|unique)\(\[.*?\], map: "(\w+)"\)/.exec(line);
      if (index) model.indexes.set(index[2]!, { unique: index[1] === 'unique' });
      const field = /^(\w+)\s+(\w+)(\?|\[\])?\s*(.*)$/.exec(line);
      if (!field || line.startsWith('@') || /@relation/.test(field[4]!)) continue;
      // A list of another model is a relation, not a column.
      if (/^[A-Z]/.test(field[2]!) && !['String', 'Int', 'BigInt', 'Boolean', 'DateTime'].includes(field[2]!)) continue;
      const column = /@map\("(\w+)"\)/.exec(field[4]!)?.[1] ?? field[1]!;
      // A scalar list (String[]) is an array column, which Prisma's own migrations create without NOT NULL.
      model.columns.set(column, { nullable: field[3] === '?' || field[3] === '[]' });
      const unique = /@unique\(map: "(\w+)"\)/.exec(field[4]!);
      if (unique) model.indexes.set(unique[1]!, { unique: true });
    }
    models.push(model);
  }
  return models;
}

describe(`prisma/migrations match prisma/schema.prisma (${backend})`, () => {
  let db: TestDatabase;
  const models = parseSchema(readFileSync(join(import.meta.dirname, '../../prisma/schema.prisma'), 'utf8'));
  beforeAll(async () => {
    db = await createTestDatabase();
  });
  afterAll(() => db.drop());

  it("declares the seventeen tables (Doorkeeper's three, users, the signing keys, the resources, the DPoP proofs, the registration tokens, the logout deliveries, the audit events, the device authorizations, the federated subjects, the login sessions, the second factors' two, the passkeys and the pushed authorization requests)", () => {
    expect(models.map((m) => m.table).sort()).toEqual([
      'login_sessions',
      'oauth_access_grants',
      'oauth_access_tokens',
      'oauth_applications',
      'oauth_audit_events',
      'oauth_device_authorizations',
      'oauth_dpop_proofs',
      'oauth_federated_subjects',
      'oauth_logout_deliveries',
      'oauth_pushed_authorization_requests',
      'oauth_registration_tokens',
      'oauth_resources',
      'oauth_signing_keys',
      'user_recovery_codes',
      'user_totp_factors',
      'users',
      'webauthn_credentials',
    ]);
  });

  it('has every declared column with its nullability, and no column that is not declared', async () => {
    for (const model of models) {
      const rows = await db.database.sql.query<{ column_name: string; is_nullable: string }>(
        `SELECT column_name, is_nullable FROM information_schema.columns WHERE table_schema = 'public' AND table_name = $1`,
        [model.table],
      );
      const actual = Object.fromEntries(rows.map((row) => [row.column_name, { nullable: row.is_nullable === 'YES' }]));
      expect(actual, model.table).toEqual(Object.fromEntries(model.columns));
    }
  });

  it('has every declared index, unique where declared unique', async () => {
    for (const model of models) {
      const rows = await db.database.sql.query<{ indexname: string; indexdef: string }>(
        `SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = 'public' AND tablename = $1`,
        [model.table],
      );
      const actual = new Map(rows.map((row) => [row.indexname, { unique: row.indexdef.startsWith('CREATE UNIQUE') }]));
      for (const [name, declared] of model.indexes) expect(actual.get(name), `${model.table}.${name}`).toEqual(declared);
    }
  });

  it('round-trips every model and column through the Prisma client', async () => {
    const { prisma } = db.database;
    const at = new Date('2026-01-02T03:04:05.678Z');
    const app = await prisma.oauthApplication.create({
      data: {
        name: 'n',
        uid: 'u',
        secret: 's',
        redirectUri: 'https://a/cb',
        scopes: 'read',
        confidential: false,
        createdAt: at,
        updatedAt: at,
      },
    });
    const grant = await prisma.oauthAccessGrant.create({
      data: {
        resourceOwnerId: 7n,
        applicationId: app.id,
        token: 'g',
        expiresIn: 600,
        redirectUri: 'https://a/cb',
        scopes: 'read',
        createdAt: at,
        revokedAt: at,
        codeChallenge: 'c',
        codeChallengeMethod: 'S256',
      },
    });
    const token = await prisma.oauthAccessToken.create({
      data: {
        resourceOwnerId: 7n,
        applicationId: app.id,
        token: 't',
        refreshToken: 'r',
        expiresIn: 60,
        scopes: 'read',
        createdAt: at,
        revokedAt: at,
        previousRefreshToken: 'p',
        accessGrantId: grant.id,
        refreshFamily: 'f',
        refreshedAt: at,
      },
    });
    const user = await prisma.user.create({ data: { username: 'x', passwordHash: '$argon2id$', createdAt: at, updatedAt: at } });
    const key = await prisma.oauthSigningKey.create({
      data: { kid: 'k', alg: 'RS256', publicJwk: '{}', privateJwk: 'v1.a.b.c', createdAt: at, signsFrom: at, rotateAt: at, retiredAt: at },
    });
    expect(await prisma.oauthSigningKey.findUniqueOrThrow({ where: { kid: 'k' } })).toEqual(key);
    expect(await prisma.oauthApplication.findUniqueOrThrow({ where: { uid: 'u' } })).toEqual(app);
    expect(await prisma.oauthAccessGrant.findUniqueOrThrow({ where: { token: 'g' } })).toEqual(grant);
    expect(await prisma.oauthAccessToken.findUniqueOrThrow({ where: { refreshToken: 'r' } })).toEqual(token);
    expect(await prisma.user.findUniqueOrThrow({ where: { username: 'x' } })).toEqual(user);
    expect(token.createdAt.toISOString()).toBe(at.toISOString());
    const passkey = await prisma.webauthnCredential.create({
      data: {
        credentialId: 'c',
        userId: user.id,
        publicKey: 'pk',
        signCount: 4294967295n,
        transports: ['internal'],
        deviceType: 'singleDevice',
        name: 'n',
        createdAt: at,
      },
    });
    expect(await prisma.webauthnCredential.findUniqueOrThrow({ where: { credentialId: 'c' } })).toEqual(passkey);
    // A user's passkeys go with the user.
    await prisma.user.delete({ where: { id: user.id } });
    expect(await prisma.webauthnCredential.count()).toBe(0);
    // Deleting an application deletes its grants and tokens (reference 13).
    await prisma.oauthApplication.delete({ where: { id: app.id } });
    expect(await prisma.oauthAccessToken.count()).toBe(0);
    expect(await prisma.oauthAccessGrant.count()).toBe(0);
  });

  it('records each applied migration in _prisma_migrations as Prisma does', async () => {
    const rows = await db.database.sql.query<{
      migration_name: string;
      checksum: string;
      applied_steps_count: number;
      finished_at: Date | null;
    }>('SELECT migration_name, checksum, applied_steps_count, finished_at FROM "_prisma_migrations" ORDER BY migration_name');
    const folders = readdirSync(join(import.meta.dirname, '../../prisma/migrations'), { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => entry.name)
      .sort();
    expect(folders.slice(0, 3)).toEqual(['20261122000000_init', '20261125000000_signing_keys', '20261125100000_openid_connect']);
    expect(rows.map((row) => row.migration_name)).toEqual(folders);
    for (const row of rows) {
      expect(row.checksum).toMatch(/^[0-9a-f]{64}$/);
      expect(row.applied_steps_count).toBe(1);
      expect(row.finished_at).not.toBeNull();
    }
  });
});
