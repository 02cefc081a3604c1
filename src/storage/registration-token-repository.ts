import type { RegistrationStore, RegistrationTokenRecord } from '../oauth/registration-tokens.js';
import type { Database } from './database.js';
import { Prisma, type OauthRegistrationToken } from './generated/client.js';
import { selectList, timestamp, type Row } from './rows.js';

// oauth_registration_tokens (initial access tokens, RFC 7591 section 3) and the count of self-registered clients
// that open registration is capped by. Registrations are rare: plain statements, no cache.

const COLUMNS = selectList(Prisma.OauthRegistrationTokenScalarFieldEnum);

// Any fixed number unique among the service's advisory locks (migrate.ts and signing-key-repository.ts have theirs).
const REGISTRATION_LOCK_KEY = 7_233_905_119;

// The advisory lock excludes other processes; one session takes it again without waiting (PGlite has one session),
// so registrations on one database in this process also queue here.
const queues = new WeakMap<Database, Promise<unknown>>();

const toToken = ({ id, ...columns }: Row<OauthRegistrationToken>): RegistrationTokenRecord => ({ ...columns, id: Number(id) });

const USABLE = `revoked_at IS NULL AND (expires_at IS NULL OR expires_at > $2) AND (uses_remaining IS NULL OR uses_remaining > 0)`;
const FIND_USABLE = {
  name: 'registration_token_usable',
  text: `SELECT ${COLUMNS} FROM oauth_registration_tokens WHERE token = $1 AND ${USABLE}`,
};
// Checked and decremented in one statement: two registrations racing for the last use cannot both get it.
const USE = {
  name: 'registration_token_use',
  text: `UPDATE oauth_registration_tokens SET uses_remaining = uses_remaining - 1 WHERE token = $1 AND ${USABLE} RETURNING id`,
};
const COUNT_DYNAMIC = {
  name: 'applications_count_dynamic',
  text: `SELECT count(*)::int AS count FROM oauth_applications WHERE registered_by = 'dynamic'`,
};

export function registrationTokenRepository(database: Database): RegistrationStore {
  const { sql, prisma } = database;
  return {
    async createToken({ token, usesRemaining, expiresAt }) {
      return toToken(await prisma.oauthRegistrationToken.create({ data: { token, usesRemaining, expiresAt } }));
    },
    async listTokens() {
      return (await prisma.oauthRegistrationToken.findMany({ orderBy: [{ id: 'asc' }] })).map(toToken);
    },
    async revokeToken(id, at) {
      const { count } = await prisma.oauthRegistrationToken.updateMany({
        where: { id: BigInt(id), revokedAt: null },
        data: { revokedAt: at },
      });
      return count > 0;
    },
    async findUsableToken(token, at) {
      const [row] = await sql.query<Row<OauthRegistrationToken>>(FIND_USABLE, [token, timestamp(at)]);
      return row ? toToken(row) : null;
    },
    async useToken(token, at) {
      return (await sql.query(USE, [token, timestamp(at)])).length > 0;
    },
    async countDynamicClients() {
      const [row] = await sql.query<{ count: number }>(COUNT_DYNAMIC);
      return row!.count;
    },
    exclusively(work) {
      const run = (queues.get(database) ?? Promise.resolve()).then(() =>
        database.withConnection(async (lock) => {
          await lock.query('SELECT pg_advisory_lock($1)', [REGISTRATION_LOCK_KEY]);
          try {
            return await work();
          } finally {
            await lock.query('SELECT pg_advisory_unlock($1)', [REGISTRATION_LOCK_KEY]);
          }
        }),
      );
      queues.set(
        database,
        run.catch(() => undefined),
      );
      return run;
    },
  };
}
