import type { Stores } from '../oauth/store.js';
import { accessGrantRepository } from './access-grant-repository.js';
import { accessTokenRepository } from './access-token-repository.js';
import { applicationAdmin } from './application-admin.js';
import { applicationRepository } from './application-repository.js';
import type { Database } from './database.js';
import type { SqlClient } from './sql-client.js';
import { userAdmin } from './user-admin.js';
import { userRepository } from './user-repository.js';

/** The domain's stores on a database, and the same stores bound to one transaction. */
export function createStores(database: Database): Stores {
  return storesOn(database.sql, {
    applicationAdmin: applicationAdmin(database.prisma),
    userAdmin: userAdmin(database.prisma),
  });
}

// The admin stores are Prisma's and stay outside the SQL transaction; nothing transactional writes through them.
function storesOn(sql: SqlClient, admin: Pick<Stores, 'applicationAdmin' | 'userAdmin'>): Stores {
  return {
    ...admin,
    applications: applicationRepository(sql),
    accessTokens: accessTokenRepository(sql),
    accessGrants: accessGrantRepository(sql),
    users: userRepository(sql),
    transaction: (work) => sql.transaction((tx) => work(storesOn(tx, admin))),
  };
}
