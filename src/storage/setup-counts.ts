import type { Database } from './database.js';

export interface SetupCounts {
  applications: number;
  users: number;
  /** Applications and resources set to JWT access tokens (RFC 9068), which only OpenID Connect's keys can sign. */
  jwtAccessTokenHolders: number;
}

/**
 * How many applications and users there are: what the boot banner's "Next steps" still has to suggest (issue 32);
 * and how many want JWT access tokens, which the boot warns about while OpenID Connect is off. Plain SQL: read through
 * Prisma, these counts loaded its runtime and query compiler at every start of the service (~0.15 s), before any
 * request needed it.
 */
export async function setupCounts(database: Database): Promise<SetupCounts> {
  const [counts] = await database.sql.query<SetupCounts>(
    'SELECT (SELECT count(*)::int FROM oauth_applications) AS applications, (SELECT count(*)::int FROM users) AS users, ' +
      "(SELECT count(*)::int FROM oauth_applications WHERE access_token_format = 'jwt') + " +
      `(SELECT count(*)::int FROM oauth_resources WHERE token_format = 'jwt') AS "jwtAccessTokenHolders"`,
  );
  return counts!;
}
