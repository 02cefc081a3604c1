import { randomBytes } from 'node:crypto';
import type { ApplicationRecord, UserRecord } from '../../src/oauth/store.js';
import { issueToken } from '../helpers/factories.js';
import type { TestServer } from '../helpers/test-server.js';

// Shared by test/integration/oidc-userinfo*.test.ts: an openid server's key, users' claims, and tokens as the
// code exchange issues them (made through the domain, so these tests do not depend on the authorization flow).

export const OPENID_ENV = { KEY_ENCRYPTION_KEY: randomBytes(32).toString('base64') };

/** Sets columns of a user's row (claims, disabled_at) as the admin pages will. Names are the test's own, never input. */
export async function setUserColumns(server: TestServer, user: UserRecord, columns: Record<string, unknown>): Promise<void> {
  const assignments = Object.keys(columns)
    .map((name, i) => `${name} = $${i + 2}`)
    .join(', ');
  await server.testDatabase.database.sql.query(`UPDATE users SET ${assignments} WHERE id = $1`, [user.id, ...Object.values(columns)]);
}

/** An access token for `user` (a client-credentials token when null), as the token endpoint issues it. */
export async function userToken(
  server: TestServer,
  application: ApplicationRecord,
  user: UserRecord | null,
  scopes: string[],
  expiresIn?: number,
): Promise<string> {
  const grantType = user ? 'authorization_code' : 'client_credentials';
  const issued = await issueToken(server.deps, {
    application,
    resourceOwnerId: user?.id ?? null,
    scopes,
    grantType,
    ...(expiresIn !== undefined && { expiresIn }),
  });
  return issued.accessToken;
}

export const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
