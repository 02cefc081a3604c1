import type { RecoveryCodeRecord, SecondFactorStore, TotpFactorRecord } from '../oauth/second-factor/second-factor-store.js';
import { Prisma, type UserRecoveryCode, type UserTotpFactor } from './generated/browser.js';
import { PrivateKeyUndecryptable } from '../oauth/keys/signing-key-check.js';
import { decryptPrivateKey, encryptPrivateKey } from './key-encryption.js';
import { selectList, timestamp, type Row } from './rows.js';
import type { SqlClient } from './sql-client.js';

// user_totp_factors and user_recovery_codes (issue 35 item 2). Raw SQL: each check of a code is one atomic statement,
// so that two instances given the same code (or recovery code) at once accept it once. The TOTP secret must be read
// back to check codes, so it cannot be hashed: it is encrypted (AES-256-GCM, as the private signing keys) under
// KEY_ENCRYPTION_KEY when one is set, bound to its user (the associated data), so a copy of the database alone yields
// no secret. Without that key (a plain OAuth server, no OpenID Connect) it is stored as it is, marked plain.

const PLAIN = 'plain:';
const boundTo = (userId: number) => `totp:${userId}`;

function seal(secret: string, userId: number, key: Buffer | null): string {
  return key === null ? PLAIN + secret : encryptPrivateKey(secret, key, boundTo(userId));
}

function unseal(stored: string, userId: number, key: Buffer | null): string {
  if (stored.startsWith(PLAIN)) return stored.slice(PLAIN.length);
  if (key === null) throw new Error(`the TOTP secret of user ${userId} is encrypted and KEY_ENCRYPTION_KEY is not set`);
  return decryptPrivateKey(stored, key, boundTo(userId));
}

const TOTP_COLUMNS = selectList(Prisma.UserTotpFactorScalarFieldEnum);

const toTotp = ({ userId, lastUsedStep, secret, createdAt }: Row<UserTotpFactor>, key: Buffer | null): TotpFactorRecord => ({
  userId: Number(userId),
  secret: unseal(secret, Number(userId), key),
  lastUsedStep: lastUsedStep === null ? null : Number(lastUsedStep),
  createdAt,
});

// One statement: the old codes go and the new ones come with the new secret, or nothing changes. The DELETE sees the
// rows from before the statement, so it never removes the codes inserted beside it.
const SAVE_TOTP = `WITH old_codes AS (DELETE FROM user_recovery_codes WHERE user_id = $1),
  factor AS (
    INSERT INTO user_totp_factors (user_id, secret, last_used_step, created_at) VALUES ($1, $2, NULL, $4)
    ON CONFLICT (user_id) DO UPDATE SET secret = EXCLUDED.secret, last_used_step = NULL, created_at = EXCLUDED.created_at
  )
  INSERT INTO user_recovery_codes (user_id, code_hash, created_at) SELECT $1, hash, $4 FROM unnest($3::text[]) AS hash`;
const REPLACE_CODES = `WITH old_codes AS (DELETE FROM user_recovery_codes WHERE user_id = $1)
  INSERT INTO user_recovery_codes (user_id, code_hash, created_at) SELECT $1, hash, $3 FROM unnest($2::text[]) AS hash`;
const USE_STEP = `UPDATE user_totp_factors SET last_used_step = $2
  WHERE user_id = $1 AND (last_used_step IS NULL OR last_used_step < $2) RETURNING user_id`;
const UNUSED_CODES = `SELECT id, code_hash AS "codeHash" FROM user_recovery_codes WHERE user_id = $1 AND used_at IS NULL ORDER BY id`;
const USE_CODE = 'UPDATE user_recovery_codes SET used_at = $2 WHERE id = $1 AND used_at IS NULL RETURNING id';
const REMOVE = `WITH codes AS (DELETE FROM user_recovery_codes WHERE user_id = $1)
  DELETE FROM user_totp_factors WHERE user_id = $1 RETURNING user_id`;
const SET_POLICY = 'UPDATE users SET mfa = $2 WHERE id = $1 RETURNING id';

/**
 * `keys rewrap`: the TOTP secrets stored under `from` re-encrypted under `to`, in the caller's transaction (that of the
 * signing keys); how many. Secrets under `to` already, or stored plain, stay; one under neither throws, rolling back.
 */
export async function rewrapTotpSecrets(tx: Prisma.TransactionClient, from: Buffer, to: Buffer): Promise<number> {
  let rewrapped = 0;
  for (const { userId, secret } of await tx.userTotpFactor.findMany({ orderBy: { userId: 'asc' } })) {
    if (secret.startsWith(PLAIN)) continue;
    const id = Number(userId);
    const plaintext = unsealedOrNull(secret, id, from);
    if (plaintext !== null) {
      await tx.userTotpFactor.update({ where: { userId }, data: { secret: seal(plaintext, id, to) } });
      rewrapped += 1;
    } else if (unsealedOrNull(secret, id, to) === null) {
      throw new Error(
        `nothing was re-encrypted: the TOTP secret of user ${id} decrypts neither with the old key given nor with KEY_ENCRYPTION_KEY`,
      );
    }
  }
  return rewrapped;
}

function unsealedOrNull(stored: string, userId: number, key: Buffer): string | null {
  try {
    return unseal(stored, userId, key);
  } catch (error) {
    if (error instanceof PrivateKeyUndecryptable) return null;
    throw error;
  }
}

/** `key`: KEY_ENCRYPTION_KEY's 32 bytes, or null. */
export function secondFactorRepository(sql: SqlClient, key: Buffer | null): SecondFactorStore {
  return {
    async findTotp(userId) {
      const [row] = await sql.query<Row<UserTotpFactor>>(`SELECT ${TOTP_COLUMNS} FROM user_totp_factors WHERE user_id = $1`, [userId]);
      return row ? toTotp(row, key) : null;
    },
    hasTotp: async (userId) => (await sql.query('SELECT 1 FROM user_totp_factors WHERE user_id = $1', [userId])).length === 1,
    async saveTotp(userId, secret, recoveryCodeHashes, at) {
      await sql.query(SAVE_TOTP, [userId, seal(secret, userId, key), recoveryCodeHashes, timestamp(at)]);
    },
    useStep: async (userId, step) => (await sql.query(USE_STEP, [userId, step])).length === 1,
    async unusedRecoveryCodes(userId) {
      const rows = await sql.query<Pick<Row<UserRecoveryCode>, 'id' | 'codeHash'>>(UNUSED_CODES, [userId]);
      return rows.map((row): RecoveryCodeRecord => ({ id: Number(row.id), codeHash: row.codeHash }));
    },
    useRecoveryCode: async (id, at) => (await sql.query(USE_CODE, [id, timestamp(at)])).length === 1,
    async replaceRecoveryCodes(userId, codeHashes, at) {
      await sql.query(REPLACE_CODES, [userId, codeHashes, timestamp(at)]);
    },
    remove: async (userId) => (await sql.query(REMOVE, [userId])).length === 1,
    setPolicy: async (userId, policy) => (await sql.query(SET_POLICY, [userId, policy])).length === 1,
  };
}
