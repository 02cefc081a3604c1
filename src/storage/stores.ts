import type { Stores } from '../oauth/store.js';
import { accessGrantRepository } from './access-grant-repository.js';
import { accessTokenRepository } from './access-token-repository.js';
import { auditEventRepository } from './audit-event-repository.js';
import { cachedApplications } from './application-cache.js';
import { cleanupStore } from './cleanup.js';
import { coalescedTokenReads } from './coalesced-token-reads.js';
import { coalescedReplayRecords } from './coalesced-replay-records.js';
import { coalescedTokenWrites } from './coalesced-token-writes.js';
import { applicationRepository } from './application-repository.js';
import type { Database } from './database.js';
import type { Prisma, PrismaClient } from './generated/client.js';
import { sqlClientForPrismaTransaction } from './prisma-transaction-sql.js';
import type { SqlClient } from './sql-client.js';
import { KeyEncryptionKeyInvalid, parseKeyEncryptionKey } from './key-encryption.js';
import { deviceAuthorizationRepository } from './device-authorization-repository.js';
import { pushedRequestRepository } from './pushed-request-repository.js';
import { dpopProofRepository } from './dpop-proof-repository.js';
import { federatedSubjectRepository } from './federated-subject-repository.js';
import { logoutDeliveryRepository } from './logout-delivery-repository.js';
import { loginSessionRepository } from './login-session-repository.js';
import { webauthnCredentialRepository } from './webauthn-credential-repository.js';
import { registrationTokenRepository } from './registration-token-repository.js';
import { resourceRepository } from './resource-repository.js';
import { secondFactorRepository } from './second-factor-repository.js';
import { signingKeyRepository } from './signing-key-repository.js';
import { userIdentityRepository } from './user-identity-repository.js';
import { userRepository } from './user-repository.js';

export interface StoreOptions {
  /** Seconds an application row may be served from this process's cache (0 turns the cache off). */
  applicationCacheSeconds?: number;
  /** KEY_ENCRYPTION_KEY (hex or base64), which encrypts the private signing keys; without it no key can be made or used. */
  keyEncryptionKey?: string | null;
}

/**
 * The domain's stores on a database, and the same stores bound to one transaction. One repository per table;
 * `applicationAdmin` and `userAdmin` are the applications' and users' repositories seen through their admin
 * interfaces (the names the domain, the HTTP layer and the CLI use).
 */
export function createStores(database: Database, { applicationCacheSeconds = 5, keyEncryptionKey = null }: StoreOptions = {}): Stores {
  const repository = applicationRepository(database.sql, database.prisma, database.readSql);
  let forgetCachedApplications = () => {};
  const applications =
    applicationCacheSeconds > 0
      ? cachedApplications(repository, {
          ttlMs: applicationCacheSeconds * 1000,
          maxEntries: 10_000,
          onInvalidate: (forgetAll) => {
            forgetCachedApplications = forgetAll;
            database.onCliCommit(forgetAll);
          },
        })
      : repository;
  const keyEncryption = keyEncryptionKey === null ? null : parseKeyEncryptionKey(keyEncryptionKey);
  const shared = {
    applications,
    applicationAdmin: applications,
    userAdmin: userRepository(database.sql, database.prisma),
    cleanup: cleanupStore(database.sql),
    resources: resourceRepository(database.sql, database.prisma),
    dpopProofs: coalescedReplayRecords(dpopProofRepository(database.sql)),
    registrations: registrationTokenRepository(database),
    signingKeys: signingKeyRepository(database, keyEncryption, () => new KeyEncryptionKeyInvalid('is not set')),
    // Never inside a transaction: each of its writes is one atomic statement of its own.
    secondFactors: secondFactorRepository(database.sql, keyEncryption),
  };
  return {
    ...storesOn(database.prisma, database.sql, shared, {
      accessTokens: coalescedTokenWrites(accessTokenRepository(database.sql)),
      tokenReads: coalescedTokenReads(accessTokenRepository(database.readSql)),
    }),
    // The transaction's application writes bypass this process's cache: emptied once they are committed (or not),
    // so an admin change (a rotated secret, a disabled client) holds here at once, as a direct write does.
    adminTransaction: async (work, { exclusive = false } = {}) => {
      try {
        return await database.prisma.$transaction(async (tx) => {
          // Released by the commit or rollback; PGlite's one session serializes its transactions anyway.
          if (exclusive) await tx.$executeRaw`SELECT pg_advisory_xact_lock(${EXCLUSIVE_ADMIN_LOCK_KEY})`;
          return work(storesInTransaction(database, tx, shared));
        }, ADMIN_TRANSACTION);
      } finally {
        forgetCachedApplications();
      }
    },
  };
}

// `oauth-service apply` writes a whole file in it: generous, but bounded (a CLI command on the embedded database holds
// the server's one session meanwhile; embedded-socket.ts disconnects one silent for 10 s).
const ADMIN_TRANSACTION = { maxWait: 10_000, timeout: 600_000 };
// Any fixed number unique among the service's advisory locks (migrate.ts, registration-token-repository.ts have theirs).
const EXCLUSIVE_ADMIN_LOCK_KEY = 7_233_905_121n;

type Shared = Pick<
  Stores,
  | 'applications'
  | 'applicationAdmin'
  | 'userAdmin'
  | 'cleanup'
  | 'signingKeys'
  | 'resources'
  | 'dpopProofs'
  | 'registrations'
  | 'secondFactors'
>;

// The admin writes go through Prisma and stay outside the SQL transaction; nothing transactional writes through
// them. The cleanup runs its own short statements, never inside a transaction. Application reads stay on the (cached) shared store: a transaction never changes an application.
// Token reads inside a transaction see that transaction, so they never go to the replica there; neither reads nor
// writes are coalesced there (the top level's `tokens`, built once in createStores).
function storesOn(prisma: PrismaClient, sql: SqlClient, shared: Shared, tokens?: Pick<Stores, 'accessTokens' | 'tokenReads'>): Stores {
  const accessTokens = tokens?.accessTokens ?? accessTokenRepository(sql);
  return {
    ...shared,
    accessTokens,
    tokenReads: tokens?.tokenReads ?? accessTokens,
    ...sqlRepositories(sql),
    users: userRepository(sql, prisma),
    transaction: (work) => sql.transaction((tx) => work(storesOn(prisma, tx, shared))),
    adminTransaction: () => Promise.reject(new Error('adminTransaction is not available inside a transaction')),
  };
}

/** The repositories that only ever query through SQL, on `sql`: the pool's client, or one transaction's. */
function sqlRepositories(sql: SqlClient) {
  return {
    accessGrants: accessGrantRepository(sql),
    logoutDeliveries: logoutDeliveryRepository(sql),
    auditEvents: auditEventRepository(sql),
    deviceAuthorizations: deviceAuthorizationRepository(sql),
    pushedRequests: pushedRequestRepository(sql),
    federatedSubjects: federatedSubjectRepository(sql),
    userIdentities: userIdentityRepository(sql),
    loginSessions: loginSessionRepository(sql),
    passkeys: webauthnCredentialRepository(sql),
  } satisfies Partial<Stores>;
}

/**
 * Every repository on one Prisma interactive transaction, the admin writes included (Prisma's model calls on `tx`,
 * the raw SQL through tx.$queryRawUnsafe), uncached, so that a read sees what the transaction wrote. Inside it,
 * `transaction` joins it. The signing keys stay outside: they are made under a lock of their own, never here.
 */
function storesInTransaction(database: Database, tx: Prisma.TransactionClient, shared: Shared): Stores {
  const sql = sqlClientForPrismaTransaction(tx);
  const prisma = tx as PrismaClient;
  const applications = applicationRepository(sql, prisma);
  const users = userRepository(sql, prisma);
  const accessTokens = accessTokenRepository(sql);
  const stores: Stores = {
    applications,
    applicationAdmin: applications,
    users,
    userAdmin: users,
    accessTokens,
    tokenReads: accessTokens,
    ...sqlRepositories(sql),
    cleanup: cleanupStore(sql),
    resources: resourceRepository(sql, prisma),
    dpopProofs: dpopProofRepository(sql),
    registrations: registrationTokenRepository({ ...database, sql, readSql: sql, prisma }),
    secondFactors: shared.secondFactors,
    signingKeys: shared.signingKeys,
    transaction: (work) => work(stores),
    adminTransaction: (work) => work(stores),
  };
  return stores;
}
