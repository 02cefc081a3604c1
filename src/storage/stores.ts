import type { Stores, TokenReadStore } from '../oauth/store.js';
import { accessGrantRepository } from './access-grant-repository.js';
import { accessTokenRepository } from './access-token-repository.js';
import { applicationAdmin } from './application-admin.js';
import { cachedApplications } from './application-cache.js';
import { applicationRepository } from './application-repository.js';
import type { Database } from './database.js';
import type { SqlClient } from './sql-client.js';
import { userAdmin } from './user-admin.js';
import { userRepository } from './user-repository.js';

export interface StoreOptions {
  /** Seconds an application row may be served from this process's cache (0 turns the cache off). */
  applicationCacheSeconds?: number;
}

/** The domain's stores on a database, and the same stores bound to one transaction. */
export function createStores(database: Database, { applicationCacheSeconds = 5 }: StoreOptions = {}): Stores {
  const admin = applicationAdmin(database.prisma);
  const applications =
    applicationCacheSeconds > 0
      ? cachedApplications(applicationRepository(database.sql), admin, {
          ttlMs: applicationCacheSeconds * 1000,
          maxEntries: 10_000,
          onInvalidate: (forgetAll) => database.onCliCommit(forgetAll),
        })
      : { applications: applicationRepository(database.sql), applicationAdmin: admin };
  return storesOn(database.sql, { ...applications, userAdmin: userAdmin(database.prisma) }, accessTokenRepository(database.readSql));
}

type Shared = Pick<Stores, 'applications' | 'applicationAdmin' | 'userAdmin'>;

// The admin stores are Prisma's and stay outside the SQL transaction; nothing transactional writes through
// them. Application reads stay on the (cached) shared store: a transaction never changes an application.
// Token reads inside a transaction see that transaction, so they never go to the replica there.
function storesOn(sql: SqlClient, shared: Shared, tokenReads?: TokenReadStore): Stores {
  const accessTokens = accessTokenRepository(sql);
  return {
    ...shared,
    accessTokens,
    tokenReads: tokenReads ?? accessTokens,
    accessGrants: accessGrantRepository(sql),
    users: userRepository(sql),
    transaction: (work) => sql.transaction((tx) => work(storesOn(tx, shared))),
  };
}
