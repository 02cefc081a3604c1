import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PasswordHasher } from '../../src/oauth/users/passwords.js';
import { deleteUser, disableUser } from '../../src/oauth/users/users.js';
import { argon2Hasher } from '../../src/storage/argon2-hasher.js';
import { createClient, createUser, type TestClient } from '../helpers/factories.js';
import { basic, expectOAuthError, TEXT, tokenRequest } from '../helpers/oauth-requests.js';
import { backend } from '../helpers/test-database.js';
import { buildTestServer, type TestServer } from '../helpers/test-server.js';

// RFC 6749 section 4.3 against an admin disabling or deleting the user at the same moment: the grant reads the
// user, verifies the password (argon2id, the slow part) and stores a token. A disable or delete that lands in
// between must not leave the client holding a live token. The interleaving is made deterministic with the real
// argon2 hasher, which, once it has verified the password, lets the admin's real disable or delete run to its end
// (through the real stores) before the grant goes on to store the token.

describe(`POST /oauth/token grant_type=password while the user is disabled or deleted concurrently (${backend})`, () => {
  let server: TestServer;
  let client: TestClient;
  /** What the admin does once the next password verification has finished; cleared after it ran. */
  let duringVerification: (() => Promise<unknown>) | null = null;

  const hasher: PasswordHasher = {
    hash: (password) => argon2Hasher.hash(password),
    async verify(hash, password) {
      const verified = await argon2Hasher.verify(hash, password);
      const admin = duringVerification;
      duringVerification = null;
      await admin?.();
      return verified;
    },
  };

  beforeAll(async () => {
    server = await buildTestServer({ config: { grantFlows: ['client_credentials', 'refresh_token', 'password'] }, passwords: hasher });
    client = await createClient(server.deps);
  });
  afterAll(() => server.close());

  const grant = (username: string, password: string) =>
    tokenRequest(server.app, { grant_type: 'password', username, password }, basic(client.uid, client.secret!));
  const liveTokensOf = async (userId: number) =>
    (
      await server.app.database.sql.query<{ count: number }>(
        'SELECT count(*)::int AS count FROM oauth_access_tokens WHERE resource_owner_id = $1 AND revoked_at IS NULL',
        [userId],
      )
    )[0]!.count;

  it('a user disabled after the password is verified gets invalid_grant and no live token', async () => {
    const user = await createUser(server.deps);
    expect((await grant(user.username, user.password)).statusCode).toBe(200);
    duringVerification = () => disableUser(server.deps, user);
    expectOAuthError(await grant(user.username, user.password), 400, 'invalid_grant', TEXT.invalidGrant);
    expect(duringVerification).toBeNull();
    expect(await liveTokensOf(user.id)).toBe(0);
  });

  it('a user deleted after the password is verified gets invalid_grant and no live token', async () => {
    const user = await createUser(server.deps);
    duringVerification = () => deleteUser(server.deps, user);
    expectOAuthError(await grant(user.username, user.password), 400, 'invalid_grant', TEXT.invalidGrant);
    expect(await server.deps.stores.users.findById(user.id)).toBeNull();
    expect(await liveTokensOf(user.id)).toBe(0);
  });

  it('a user who stays enabled still gets a token (the check after the write refuses nothing else)', async () => {
    const user = await createUser(server.deps);
    duringVerification = async () => undefined;
    const response = await grant(user.username, user.password);
    expect(response.statusCode).toBe(200);
    expect(await liveTokensOf(user.id)).toBe(1);
  });
});
