import { randomBytes } from 'node:crypto';
import { decodeProtectedHeader } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listAuditEvents } from '../../src/oauth/audit/audit-trail.js';
import { ensureSigningKeys } from '../../src/oauth/keys/signing-key-service.js';
import { createDatabase } from '../../src/storage/database.js';
import { createClient, createUser, signedIn } from '../helpers/end-user.js';
import { codeFlow, jwksOf, openIdServer, verifiedIdToken } from '../helpers/openid.js';
import { backend, createTestDatabase, type TestDatabase } from '../helpers/test-database.js';
import type { TestServer } from '../helpers/test-server.js';

// Two OpenID Provider instances on one database behave as one (issue 16): what one signs, the JWKS of the other
// verifies, and the automatic rotation, started on both at once, makes one key.

const env = { KEY_ENCRYPTION_KEY: randomBytes(32).toString('base64') };

describe(`two OpenID Provider instances on one database (${backend})`, () => {
  let db: TestDatabase;
  let secondConnection: TestDatabase | null = null;
  let one: TestServer;
  let two: TestServer;

  beforeAll(async () => {
    db = await createTestDatabase();
    // On PostgreSQL the second instance gets its own pool, so only the database's advisory lock stands between them.
    if (db.url) {
      const database = await createDatabase({ databaseUrl: db.url, dataDir: 'unused' });
      secondConnection = { database, url: db.url, drop: () => database.close() };
    }
    [one, two] = await Promise.all([openIdServer({ env, testDatabase: db }), openIdServer({ env, testDatabase: secondConnection ?? db })]);
    await Promise.all([one.app.ready(), two.app.ready()]);
    await createUser(one.deps, 'alice');
  });
  afterAll(async () => {
    await one?.close();
    await two?.close();
    await secondConnection?.drop();
    await db?.drop();
  });

  const signingKeyRows = async (alg: string) =>
    (
      await one.testDatabase.database.sql.query<{ kid: string; signs_from: Date }>(
        'SELECT kid, signs_from FROM oauth_signing_keys WHERE alg = $1 ORDER BY id',
        [alg],
      )
    ).map((row) => ({ kid: row.kid, signsFrom: new Date(row.signs_from) }));

  // Keys the service makes by itself are in the audit trail as the CLI's are: one event per key, by whichever instance made it.
  const keyEvents = () => listAuditEvents(one.deps, { type: 'signing_key.rotated', limit: 10 });

  it('booting both at once made one RS256 key, recorded once in the audit trail (actor system); both serve the same JWKS', async () => {
    const [key] = await signingKeyRows('RS256');
    expect(await signingKeyRows('RS256')).toHaveLength(1);
    expect(await keyEvents()).toMatchObject([
      {
        actor: 'system',
        outcome: 'success',
        subjectType: 'signing_key',
        subjectId: key!.kid,
        ip: null,
        details: { alg: 'RS256', signs_from: key!.signsFrom.toISOString() },
      },
    ]);
    expect(await jwksOf(two)).toEqual(await jwksOf(one));
  });

  it('an ID token from the code flow on one validates with the JWKS served by the other, both ways', async () => {
    const client = await createClient(one.deps);
    for (const [issuer, verifier] of [
      [one, two],
      [two, one],
    ] as const) {
      const { response } = await codeFlow(issuer, await signedIn(issuer.app, 'alice'), client, { nonce: 'n-0S6_WzA2Mj' });
      expect(response.statusCode, response.body).toBe(200);
      const idToken = response.json().id_token as string;
      const claims = await verifiedIdToken(verifier, idToken, client.application.uid);
      expect(claims).toMatchObject({ aud: client.application.uid, nonce: 'n-0S6_WzA2Mj' });
      expect(claims.sub).not.toBe('alice');
      expect((await jwksOf(verifier)).keys.map((key) => key.kid)).toContain(decodeProtectedHeader(idToken).kid);
    }
  });

  it('the rotation started on both at once, once the key is due (rotateAfterDays), makes exactly one new key', async () => {
    const [current] = await signingKeyRows('RS256');
    const { rotateAfterDays, publishAheadSeconds } = one.config.keys;
    // The successor is due publishAheadSeconds before the planned rotation; both instances' clocks get there.
    for (const server of [one, two]) server.clock.advance(rotateAfterDays * 86_400 - publishAheadSeconds + 60);

    // What each instance's rotation plugin runs on its timer (signing-key-rotation.ts).
    const made = await Promise.all([ensureSigningKeys(one.deps), ensureSigningKeys(two.deps)]);
    expect(made.flat().map((key) => key.alg)).toEqual(['RS256']);
    const rows = await signingKeyRows('RS256');
    expect(rows.map((row) => row.kid)).toEqual([current!.kid, made.flat()[0]!.kid]);
    // Published ahead: it signs when the current key's planned rotation comes.
    expect(rows[1]!.signsFrom.getTime()).toBeGreaterThan(one.clock.now.getTime());

    // Asked again on both, nothing more is due.
    expect((await Promise.all([ensureSigningKeys(one.deps), ensureSigningKeys(two.deps)])).flat()).toEqual([]);
    expect(await signingKeyRows('RS256')).toHaveLength(2);
    expect((await jwksOf(two)).keys.map((key) => key.kid)).toEqual(rows.map((row) => row.kid));
  });
});
