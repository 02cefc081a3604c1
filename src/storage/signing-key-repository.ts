import { PrivateKeyUndecryptable } from '../oauth/keys/signing-key-check.js';
import type { LockedSigningKeys, SigningKeyStore } from '../oauth/store.js';
import type { SigningAlgorithm, SigningKeyRecord } from '../oauth/keys/signing-keys.js';
import { withAdvisoryTransactionLock } from './advisory-lock.js';
import type { Database } from './database.js';
import { Prisma, type OauthSigningKey } from './generated/browser.js';
import { decryptPrivateKey, encryptPrivateKey } from './key-encryption.js';
import { rewrapTotpSecrets } from './second-factor-repository.js';
import { sqlClientForPrismaTransaction } from './prisma-transaction-sql.js';
import { selectList, type Row } from './rows.js';
import type { SqlClient } from './sql-client.js';

// oauth_signing_keys (a handful of rows, read when keys are listed or rotated, never per request once cached): the
// reads in plain SQL (the listing on the rotation lock's transaction too; the private keys are read at every start,
// which then no longer loads Prisma), the writes through Prisma. The private JWK is encrypted here, on its way in, and
// decrypted only when asked for.

// Any fixed number unique among the service's advisory locks (migrate.ts has its own).
const ROTATION_LOCK_KEY = 7_233_905_118n;

/** The table's one mapper; the private key stays out of the record. */
const toKey = ({ kid, alg, publicJwk, createdAt, signsFrom, rotateAt, retiredAt }: Row<OauthSigningKey>): SigningKeyRecord => ({
  kid,
  alg: alg as SigningAlgorithm,
  publicJwk: JSON.parse(publicJwk) as Record<string, unknown>,
  createdAt,
  signsFrom,
  rotateAt,
  retiredAt,
});

const ALL = `SELECT ${selectList(Prisma.OauthSigningKeyScalarFieldEnum)} FROM oauth_signing_keys ORDER BY id`;
const listKeys = async (sql: SqlClient) => (await sql.query<Row<OauthSigningKey>>(ALL)).map(toKey);
const PRIVATE_JWK = 'SELECT private_jwk AS "privateJwk" FROM oauth_signing_keys WHERE kid = $1';

/**
 * `keyEncryptionKey` is KEY_ENCRYPTION_KEY's 32 bytes; a null key makes every call that needs it (create,
 * privateJwk) fail with `missingKey`'s error, while listing the public keys still works.
 */
export function signingKeyRepository(database: Database, keyEncryptionKey: Buffer | null, missingKey: () => Error): SigningKeyStore {
  const kek = () => {
    if (keyEncryptionKey === null) throw missingKey();
    return keyEncryptionKey;
  };
  return {
    list: () => listKeys(database.sql),
    async privateJwk(kid) {
      const [row] = await database.sql.query<Pick<OauthSigningKey, 'privateJwk'>>(PRIVATE_JWK, [kid]);
      return row ? (JSON.parse(decryptPrivateKey(row.privateJwk, kek(), kid)) as Record<string, unknown>) : null;
    },
    exclusively(work) {
      return withAdvisoryTransactionLock(database, ROTATION_LOCK_KEY, (tx) => work(lockedSigningKeys(tx, kek)));
    },
  };
}

// The work's statements run on the lock's transaction (advisory-lock.ts): on another pooled connection they would
// wait forever for a pool of one connection, and they would not be under the lock.
function lockedSigningKeys(tx: Prisma.TransactionClient, kek: () => Buffer): LockedSigningKeys {
  return {
    list: () => listKeys(sqlClientForPrismaTransaction(tx)),
    async create({ kid, alg, publicJwk, privateJwk }, times) {
      const privateText = encryptPrivateKey(JSON.stringify(privateJwk), kek(), kid);
      return toKey(
        await tx.oauthSigningKey.create({ data: { kid, alg, publicJwk: JSON.stringify(publicJwk), privateJwk: privateText, ...times } }),
      );
    },
    async retire(kid, at) {
      return (await tx.oauthSigningKey.updateMany({ where: { kid, retiredAt: null }, data: { retiredAt: at } })).count > 0;
    },
  };
}

/** What `keys rewrap` did: the keys re-encrypted, and those it found under the new key already. */
export interface Rewrapped {
  rewrapped: string[];
  unchanged: string[];
  /** The users' TOTP secrets re-encrypted with them (issue 35: stored under the same key). */
  totpSecrets: number;
}

/**
 * `keys rewrap` (issue 31 item 6): every stored private key re-encrypted from the key-encryption key `from` to `to`,
 * in one transaction under the rotation lock, so that no instance makes a key meanwhile. A key under `to` already is
 * left as it is (a second run changes nothing); a key that decrypts under neither rolls the whole run back.
 */
export function rewrapSigningKeys(database: Database, from: Buffer, to: Buffer): Promise<Rewrapped> {
  return withAdvisoryTransactionLock(database, ROTATION_LOCK_KEY, async (tx) => {
    const outcome: Rewrapped = { rewrapped: [], unchanged: [], totpSecrets: 0 };
    const neither: string[] = [];
    for (const { id, kid, privateJwk } of await tx.oauthSigningKey.findMany({ orderBy: { id: 'asc' } })) {
      const plaintext = decryptedOrNull(privateJwk, from, kid);
      if (plaintext !== null) {
        await tx.oauthSigningKey.update({ where: { id }, data: { privateJwk: encryptPrivateKey(plaintext, to, kid) } });
        outcome.rewrapped.push(kid);
      } else if (decryptedOrNull(privateJwk, to, kid) !== null) outcome.unchanged.push(kid);
      else neither.push(kid);
    }
    if (neither.length > 0) {
      throw new Error(
        `nothing was re-encrypted: the private key of ${neither.join(', ')} decrypts neither with the old key given nor with ` +
          'KEY_ENCRYPTION_KEY (is the old key the one the keys were stored under?)',
      );
    }
    outcome.totpSecrets = await rewrapTotpSecrets(tx, from, to);
    return outcome;
  });
}

function decryptedOrNull(stored: string, key: Buffer, kid: string): string | null {
  try {
    return decryptPrivateKey(stored, key, kid);
  } catch (error) {
    if (error instanceof PrivateKeyUndecryptable) return null;
    throw error;
  }
}
