import pg from 'pg';
import { domainDeps } from '../src/cli/context.js';
import { argon2Hasher } from '../src/storage/argon2-hasher.js';
import type { Config } from '../src/config/types.js';
import { createApplication } from '../src/oauth/clients/applications.js';
import { generateSecret } from '../src/oauth/secrets.js';
import { issueAccessToken } from '../src/oauth/tokens/token-issuer.js';
import { createDatabase } from '../src/storage/database.js';
import { migrate } from '../src/storage/migrate.js';

/** What the scenarios present: plain values, as a client holds them. */
export interface Seed {
  clientId: string;
  clientSecret: string;
  /** A live access token of the client (introspected, and the token-info credential). */
  activeToken: string;
  /** A second live token of the same client: the Bearer requester that introspects activeToken. */
  bearerToken: string;
  /** Never stored. */
  unknownToken: string;
  /** Live refresh tokens of the client, each the start of one connection's rotation chain. */
  refreshTokens: string[];
  applicationId: number;
  /** A user of the service and their password (bench:peers signs in with them). */
  username: string;
  password: string;
}

/**
 * Seeds through the service's own domain (createApplication, issueAccessToken), so the rows are exactly what
 * the service writes; only the bulk sets for the scale runs use SQL (see insertBulkTokens).
 */
export async function seedThroughDomain(url: string, config: Readonly<Config>, refreshChains: number): Promise<Seed> {
  const database = await createDatabase({ databaseUrl: url, dataDir: 'unused', poolSize: 4 });
  try {
    await migrate(database);
    const deps = domainDeps(database, config);
    const { application, plainSecret } = await createApplication(deps, {
      name: 'bench client',
      redirectUri: 'https://client.example/callback',
      scopes: '',
      confidential: true,
    });
    const [username, password] = ['bench-user', 'bench-password'];
    const user = await deps.stores.userAdmin.create({ username, passwordHash: await argon2Hasher.hash(password) });
    const issue = async (withRefreshToken: boolean) =>
      issueAccessToken(deps, {
        application,
        resourceOwnerId: withRefreshToken ? user.id : null,
        scopes: [...config.defaultScopes],
        grantType: withRefreshToken ? 'authorization_code' : 'client_credentials',
        withRefreshToken,
      });
    const activeToken = (await issue(false)).accessToken;
    const bearerToken = (await issue(false)).accessToken;
    const refreshTokens: string[] = [];
    for (let i = 0; i < refreshChains; i += 1) refreshTokens.push((await issue(true)).refreshToken!);
    return {
      clientId: application.uid,
      clientSecret: plainSecret!,
      activeToken,
      bearerToken,
      unknownToken: generateSecret(),
      refreshTokens,
      applicationId: application.id,
      username,
      password,
    };
  } finally {
    await database.close();
  }
}

/** A generated token's length: 43 characters of the base64url alphabet, like the service's 256-bit values. */
const TOKEN_LENGTH = 43;

/** The plain value of bulk token n, as generatedTokenSql('b', ...) makes it in the database. */
export const bulkToken = (n: number) => `b${String(n).padStart(TOKEN_LENGTH - 1, '0')}`;

/** SQL for the stored value of generated token n (`prefix` then n, padded to TOKEN_LENGTH), hashed as the service hashes. */
export function generatedTokenSql(prefix: string, hashTokens: boolean): string {
  const plain = `'${prefix}' || lpad(n::text, ${TOKEN_LENGTH - prefix.length}, '0')`;
  return hashTokens ? `encode(sha256(convert_to(${plain}, 'UTF8')), 'hex')` : plain;
}

export async function countTokens(client: pg.Client): Promise<number> {
  const { rows } = await client.query<{ count: string }>('SELECT count(*) FROM oauth_access_tokens');
  return Number(rows[0]!.count);
}

/**
 * Runs `insert` (an INSERT ... SELECT over `generate_series($2::bigint, $3::bigint) AS n`, with $1 the
 * application id and `values` from $4 on) for n = from..to in 100k-row statements, so no transaction is long, then refreshes the
 * planner's statistics. Returns the table's row count.
 */
export async function insertGeneratedTokens(
  url: string,
  { applicationId, from, to, insert, values = [] }: { applicationId: number; from: number; to: number; insert: string; values?: unknown[] },
  progress: (done: number) => void,
): Promise<number> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const batch = 100_000;
    for (let start = from; start <= to; start += batch) {
      const end = Math.min(to, start + batch - 1);
      await client.query(insert, [applicationId, start, end, ...values]);
      progress(end - from + 1);
    }
    await client.query('VACUUM ANALYZE oauth_access_tokens');
    return await countTokens(client);
  } finally {
    await client.end();
  }
}

/** Inserts live access tokens bulkToken(from..to) of the application (see insertGeneratedTokens). */
export function insertBulkTokens(
  url: string,
  { applicationId, from, to, hashTokens, scopes }: { applicationId: number; from: number; to: number; hashTokens: boolean; scopes: string },
  progress: (done: number) => void,
): Promise<number> {
  const insert = `INSERT INTO oauth_access_tokens (application_id, token, expires_in, scopes, created_at, previous_refresh_token)
    SELECT $1, ${generatedTokenSql('b', hashTokens)}, 86400, $4, now() AT TIME ZONE 'utc', ''
    FROM generate_series($2::bigint, $3::bigint) AS n`;
  return insertGeneratedTokens(url, { applicationId, from, to, insert, values: [scopes] }, progress);
}
