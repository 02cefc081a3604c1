import type { LockedRegistrations, RegistrationStore, RegistrationTokenRecord } from '../oauth/clients/registration/registration-store.js';
import { withAdvisoryTransactionLock } from './advisory-lock.js';
import { applicationRepository } from './application-repository.js';
import type { Database } from './database.js';
import { Prisma, type OauthRegistrationToken } from './generated/browser.js';
import type { PrismaClient } from './generated/client.js';
import { selectList, splitList, timestamp, type Row } from './rows.js';
import { COUNT_LIVE_CLIENTS, DELETE_EXPIRED_UNUSED_CLIENT, DELETE_EXPIRED_UNUSED_CLIENTS } from './self-registered-clients.js';

// oauth_registration_tokens (initial access tokens, RFC 7591 section 3) and the count of self-registered clients
// that open registration is capped by. Registrations are rare: plain statements, no cache.

const COLUMNS = selectList(Prisma.OauthRegistrationTokenScalarFieldEnum);

// Any fixed number unique among the service's advisory locks (migrate.ts and signing-key-repository.ts have theirs).
const REGISTRATION_LOCK_KEY = 7_233_905_119n;

const toToken = ({ id, grantTypes, scopes, ...columns }: Row<OauthRegistrationToken>): RegistrationTokenRecord => ({
  ...columns,
  id: Number(id),
  grantTypes: splitList(grantTypes),
  scopes: splitList(scopes),
});

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

export function registrationTokenRepository(database: Database): RegistrationStore {
  const { sql, prisma } = database;
  return {
    async createToken({ token, usesRemaining, expiresAt, grantTypes, scopes }) {
      const data = { token, usesRemaining, expiresAt, grantTypes: grantTypes.join(' '), scopes: scopes.join(' ') };
      return toToken(await prisma.oauthRegistrationToken.create({ data }));
    },
    listTokens: async () =>
      (await sql.query<Row<OauthRegistrationToken>>(`SELECT ${COLUMNS} FROM oauth_registration_tokens ORDER BY id`)).map(toToken),
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
    async countLiveClients(kind, expiredBefore) {
      const [row] = await sql.query<{ count: number }>(COUNT_LIVE_CLIENTS, [kind, timestamp(expiredBefore)]);
      return row!.count;
    },
    exclusively(work) {
      return withAdvisoryTransactionLock(database, REGISTRATION_LOCK_KEY, (tx) => work(lockedRegistrations(database, tx)));
    },
  };
}

// The same statements as above, on the lock's transaction. The application is made by the applications' own
// repository on that transaction (its create uses only the Prisma model, which the transaction client has).
function lockedRegistrations(database: Database, tx: Prisma.TransactionClient): LockedRegistrations {
  const applications = applicationRepository(database.sql, tx as PrismaClient);
  return {
    async countLiveClients(kind, expiredBefore) {
      const [row] = await tx.$queryRawUnsafe<Array<{ count: number }>>(COUNT_LIVE_CLIENTS.text, kind, timestamp(expiredBefore));
      return row!.count;
    },
    async deleteExpiredUnusedClients(expiredBefore, limit) {
      return (await tx.$queryRawUnsafe<unknown[]>(DELETE_EXPIRED_UNUSED_CLIENTS, timestamp(expiredBefore), limit)).length;
    },
    async deleteExpiredUnusedClient(id, expiredBefore) {
      return (await tx.$queryRawUnsafe<unknown[]>(DELETE_EXPIRED_UNUSED_CLIENT, id, timestamp(expiredBefore))).length > 0;
    },
    async useToken(token, at) {
      return (await tx.$queryRawUnsafe<unknown[]>(USE.text, token, at)).length > 0;
    },
    // created_at as given (the domain's clock), not the column's default.
    createApplication: (input) => applications.create(input),
  };
}
