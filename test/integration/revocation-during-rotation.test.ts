import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { revokeAuthorizations } from '../../src/oauth/authorization/authorizations.js';
import type { NewAccessToken } from '../../src/oauth/store.js';
import { generateSecret, storedForm } from '../../src/oauth/secrets.js';
import { createClient, createCode, createUser, type TestClient } from '../helpers/factories.js';
import { basic, tokenRequest } from '../helpers/oauth-requests.js';
import { TEST_DATABASE_URL } from '../helpers/test-database.js';
import { buildTestServer, type TestServer } from '../helpers/test-server.js';

// A revocation of many tokens at once (a family for reuse detection, a user's on disable) that runs while a refresh
// rotates one of them: under READ COMMITTED its UPDATE waits for the rotation's lock on the predecessor, and the
// successor the rotation inserted is not in its snapshot. It stayed live, and refreshed on for ever (a race audit, on
// two instances). Likewise the tokens of a code exchange committed between a user's revocation of the tokens and of
// the codes (a second race audit). Here the rotation, or the exchange, is held open in its own transaction while the
// revocation runs; and an exchange that revokes the earlier tokens (revokePreviousAuthorizationCodeToken) while
// another exchange of the same client and user runs. PostgreSQL only: the embedded database has one session, so nothing runs beside a transaction there.

/** A token with a refresh token, of `family` (null: none), stored as one the service issues. */
const newToken = (
  applicationId: number,
  resourceOwnerId: number,
  family: string | null,
  previousRefreshToken?: string,
): NewAccessToken => ({
  applicationId,
  resourceOwnerId,
  token: storedForm(generateSecret(), true),
  refreshToken: storedForm(generateSecret(), true),
  expiresIn: 7200,
  scopes: ['read'],
  createdAt: new Date(),
  accessGrantId: null,
  refreshFamily: family,
  ...(previousRefreshToken !== undefined && { previousRefreshToken }),
});

/** Runs `change` in a transaction kept open until `revoke` waits for a lock it holds; `revoke`'s result. */
async function heldOpenAround<T>(
  server: TestServer,
  change: (stores: TestServer['deps']['stores']) => Promise<void>,
  revoke: () => Promise<T>,
): Promise<T> {
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  let changed!: () => void;
  const hasChanged = new Promise<void>((resolve) => (changed = resolve));
  const transaction = server.deps.stores.transaction(async (stores) => {
    await change(stores);
    changed();
    await held;
  });
  await hasChanged;
  let settled = false;
  const revocation = revoke().finally(() => (settled = true));
  const sql = server.testDatabase.database.sql;
  while (
    !settled &&
    (await sql.query("SELECT 1 FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND datname = current_database()")).length === 0
  )
    await new Promise((resolve) => setTimeout(resolve, 10));
  release();
  const [, revoked] = await Promise.all([transaction, revocation]);
  return revoked;
}

describe.skipIf(!TEST_DATABASE_URL)('revoking a family or a user while a refresh rotates one of its tokens (PostgreSQL)', () => {
  let server: TestServer;
  let client: TestClient;
  beforeAll(async () => {
    server = await buildTestServer();
    client = await createClient(server.deps);
  });
  afterAll(() => server.close());

  const token = (resourceOwnerId: number, family: string, previousRefreshToken?: string) =>
    newToken(client.application.id, resourceOwnerId, family, previousRefreshToken);

  /** Rotates `predecessor` in a transaction kept open until `revoke` waits for the lock the rotation holds. */
  async function rotationAround(predecessor: { id: number }, next: NewAccessToken, revoke: () => Promise<number>) {
    await heldOpenAround(
      server,
      async (stores) => expect(await stores.accessTokens.rotate(predecessor.id, new Date(), next)).not.toBeNull(),
      revoke,
    );
    return (await server.deps.stores.accessTokens.findByRefreshToken(next.refreshToken!))!.revokedAt === null;
  }

  it("a user's Revoke (or revoke-tokens, disable) while a code is exchanged revokes the tokens the exchange issued", async () => {
    for (const applicationId of [client.application.id, null]) {
      const user = await createUser(server.deps);
      const grant = await server.deps.stores.accessGrants.create({
        applicationId: client.application.id,
        resourceOwnerId: user.id,
        token: storedForm(generateSecret(), true),
        expiresIn: 600,
        redirectUri: client.application.redirectUris[0]!,
        scopes: ['read'],
        createdAt: new Date(),
        codeChallenge: null,
        codeChallengeMethod: null,
      });
      const issued = token(user.id, generateSecret());
      const revoked = await heldOpenAround(
        server,
        async (stores) => expect(await stores.accessTokens.createForCode(grant.id, new Date(), issued)).not.toBeNull(),
        () => revokeAuthorizations(server.deps, user.id, applicationId),
      );
      expect((await server.deps.stores.accessTokens.findByRefreshToken(issued.refreshToken!))!.revokedAt).not.toBeNull();
      expect(revoked.tokens).toBe(1);
    }
  });

  it('reuse detection revokes the successor a concurrent rotation inserted', async () => {
    const family = generateSecret();
    const user = await createUser(server.deps);
    const first = await server.deps.stores.accessTokens.create(token(user.id, family));
    const live = await rotationAround(first, token(user.id, family, first.refreshToken!), () =>
      server.deps.stores.accessTokens.revokeFamily(family, new Date()),
    );
    expect(live).toBe(false);
  });

  it("a user's revocation (disable, delete, revoke-tokens) revokes the successor a concurrent rotation inserted", async () => {
    const family = generateSecret();
    const user = await createUser(server.deps);
    const first = await server.deps.stores.accessTokens.create(token(user.id, family));
    const live = await rotationAround(first, token(user.id, family, first.refreshToken!), () =>
      server.deps.stores.accessTokens.revokeAllForOwner(user.id, new Date()),
    );
    expect(live).toBe(false);
  });
});

describe.skipIf(!TEST_DATABASE_URL)(
  'revokePreviousAuthorizationCodeToken with two exchanges of one client and user at once (PostgreSQL)',
  () => {
    let server: TestServer;
    beforeAll(async () => {
      server = await buildTestServer({ config: { revokePreviousAuthorizationCodeToken: true } });
    });
    afterAll(() => server.close());

    it('an exchange waits for the one under way and revokes the token that one stored: one token stays live', async () => {
      const client = await createClient(server.deps);
      const user = await createUser(server.deps);
      const { code, redirectUri } = await createCode(server.deps, { application: client.application, resourceOwnerId: user.id });
      const other = newToken(client.application.id, user.id, null);
      // The exchange under way, held open after it did what exchange() does: its client's lock, the revocation, its token.
      const response = await heldOpenAround(
        server,
        async (stores) => {
          await stores.accessTokens.lockIssuance(client.application.id);
          await stores.accessTokens.revokeAllFor(client.application.id, user.id, new Date());
          await stores.accessTokens.create(other);
        },
        () =>
          tokenRequest(
            server.app,
            { grant_type: 'authorization_code', code, redirect_uri: redirectUri },
            basic(client.uid, client.secret!),
          ),
      );
      expect(response.statusCode).toBe(200);
      expect((await server.deps.stores.accessTokens.findByRefreshToken(other.refreshToken!))!.revokedAt).not.toBeNull();
    });
  },
);
