import { randomBytes } from 'node:crypto';
import { importJWK, jwtVerify, SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/loader.js';
import {
  ensureSigningKeys,
  publishedJwks,
  retireSigningKey,
  rotateSigningKey,
  type SigningKeyDeps,
} from '../../src/oauth/keys/signing-key-service.js';
import { createDatabase, type Database } from '../../src/storage/database.js';
import { createStores } from '../../src/storage/stores.js';
import { backend, createTestDatabase, type TestDatabase } from '../helpers/test-database.js';

// Signing keys in the shared table (issue 16, first part): made once under one lock however many instances ask,
// private keys encrypted under KEY_ENCRYPTION_KEY, retired keys gone from the JWKS at once.

const KEK = randomBytes(32).toString('hex');

describe(`signing keys in the database (${backend})`, () => {
  let db: TestDatabase;
  let second: Database | null = null;
  let deps: SigningKeyDeps;
  let clock = new Date(Date.UTC(2026, 0, 1));
  const config = loadConfig({ input: { keys: { algorithms: ['RS256', 'ES256'], publishAheadSeconds: 3600, rotateAfterDays: 30 } } });
  const depsOn = (database: Database, keyEncryptionKey: string | null = KEK): SigningKeyDeps => ({
    stores: createStores(database, { keyEncryptionKey }),
    config,
    now: () => clock,
  });

  beforeAll(async () => {
    db = await createTestDatabase();
    deps = depsOn(db.database);
    // A second instance on PostgreSQL: its own pool, so the advisory lock is really between two sessions.
    if (db.url) second = await createDatabase({ databaseUrl: db.url, dataDir: 'unused' });
  });
  afterAll(async () => {
    await second?.close();
    await db.drop();
  });

  it('two instances asking for keys at once make exactly one key per algorithm', async () => {
    const other = depsOn(second ?? db.database);
    const made = await Promise.all([ensureSigningKeys(deps), ensureSigningKeys(other), ensureSigningKeys(deps), ensureSigningKeys(other)]);
    expect(
      made
        .flat()
        .map((key) => key.alg)
        .sort(),
    ).toEqual(['ES256', 'RS256']);
    expect(await ensureSigningKeys(deps)).toEqual([]);
    expect((await publishedJwks(other)).keys.map((key) => key.alg).sort()).toEqual(['ES256', 'RS256']);
  });

  it('stores the private key encrypted: the row holds no key material, and it decrypts only with KEY_ENCRYPTION_KEY', async () => {
    const [key] = await deps.stores.signingKeys.list();
    const rows = await db.database.sql.query<{ private_jwk: string }>('SELECT private_jwk FROM oauth_signing_keys WHERE kid = $1', [
      key!.kid,
    ]);
    const privateJwk = (await deps.stores.signingKeys.privateJwk(key!.kid))!;
    expect(String(privateJwk.d).length).toBeGreaterThan(20);
    expect(rows[0]!.private_jwk).toMatch(/^v1\./);
    expect(rows[0]!.private_jwk).not.toContain(String(privateJwk.d));
    // What it signs verifies with the published key, as a relying party does it.
    const token = await new SignJWT({ sub: 'x' })
      .setProtectedHeader({ alg: key!.alg, kid: key!.kid })
      .sign(await importJWK(privateJwk, key!.alg));
    expect((await jwtVerify(token, await importJWK(key!.publicJwk, key!.alg))).payload.sub).toBe('x');
    await expect(depsOn(db.database, randomBytes(32).toString('hex')).stores.signingKeys.privateJwk(key!.kid)).rejects.toThrow(
      /KEY_ENCRYPTION_KEY/,
    );
  });

  it('without KEY_ENCRYPTION_KEY no key is made, and the error names the variable', async () => {
    await expect(rotateSigningKey(depsOn(db.database, null), 'RS256')).rejects.toThrow(/^KEY_ENCRYPTION_KEY is not set/);
  });

  it('a rotation by hand publishes the new key at once and lets it sign only after the publish-ahead window', async () => {
    const key = await rotateSigningKey(deps, 'RS256');
    expect(key.signsFrom.getTime() - clock.getTime()).toBe(3600 * 1000);
    expect((await publishedJwks(deps)).keys.map((jwk) => jwk.kid)).toContain(key.kid);
  });

  it('a retired key leaves the JWKS at once; a new one signs at once when it was the last of its algorithm', async () => {
    const es256 = (await deps.stores.signingKeys.list()).find((key) => key.alg === 'ES256')!;
    const { retired, made } = await retireSigningKey(deps, es256.kid);
    expect(retired).toBe(true);
    expect(made.map((key) => [key.alg, key.signsFrom.getTime()])).toEqual([['ES256', clock.getTime()]]);
    const kids = (await publishedJwks(deps)).keys.map((jwk) => jwk.kid);
    expect(kids).not.toContain(es256.kid);
    expect(kids).toContain(made[0]!.kid);
    expect((await retireSigningKey(deps, es256.kid)).retired).toBe(false);
  });

  it('the successor is made publishAheadSeconds before the planned rotation, by whichever instance comes first', async () => {
    const before = (await deps.stores.signingKeys.list()).length;
    clock = new Date(clock.getTime() + (30 * 86_400 - 3600) * 1000);
    const made = await Promise.all([ensureSigningKeys(deps), ensureSigningKeys(depsOn(second ?? db.database))]);
    expect(made.flat().length).toBeGreaterThan(0);
    expect((await deps.stores.signingKeys.list()).length).toBe(before + made.flat().length);
    expect(await ensureSigningKeys(deps)).toEqual([]);
  });
});
