import type { PasskeyRecord, PasskeyStore } from '../oauth/passkeys/passkey-store.js';
import { Prisma, type WebauthnCredential } from './generated/browser.js';
import { uniqueViolation } from './prisma-errors.js';
import { selectList, timestamp, type Row } from './rows.js';
import type { SqlClient } from './sql-client.js';

// webauthn_credentials (issue 35 item 1): raw SQL like the other tables a sign-in reads, so every call also works on
// a transaction's client.

const COLUMNS = selectList(Prisma.WebauthnCredentialScalarFieldEnum);

const toPasskey = ({ id, userId, signCount, ...columns }: Row<WebauthnCredential>): PasskeyRecord => ({
  ...columns,
  id: Number(id),
  userId: Number(userId),
  signCount: Number(signCount),
  transports: columns.transports ?? [],
});

const INSERT = `INSERT INTO webauthn_credentials
  (credential_id, user_id, public_key, sign_count, transports, backup_eligible, backed_up, device_type, aaguid, name, created_at)
  VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) RETURNING ${COLUMNS}`;
const BY_CREDENTIAL_ID = `SELECT ${COLUMNS} FROM webauthn_credentials WHERE credential_id = $1`;
const OF_USER = `SELECT ${COLUMNS} FROM webauthn_credentials WHERE user_id = $1 ORDER BY created_at, id`;
const RENAME = 'UPDATE webauthn_credentials SET name = $3 WHERE id = $1 AND user_id = $2 RETURNING id';
const DELETE_OF_USER = `DELETE FROM webauthn_credentials WHERE id = $1 AND user_id = $2 RETURNING ${COLUMNS}`;
const DELETE_ALL_OF_USER = `DELETE FROM webauthn_credentials WHERE user_id = $1 RETURNING ${COLUMNS}`;
const RECORD_USE = `UPDATE webauthn_credentials SET sign_count = $3, backed_up = $4, last_used_at = $5
  WHERE id = $1 AND sign_count = $2 RETURNING id`;

export function webauthnCredentialRepository(sql: SqlClient): PasskeyStore {
  const one = (rows: Row<WebauthnCredential>[]) => (rows[0] ? toPasskey(rows[0]) : null);
  return {
    async create(passkey, at) {
      const { credentialId, userId, publicKey, signCount, transports, backupEligible, backedUp, deviceType, aaguid, name } = passkey;
      const values = [credentialId, userId, publicKey, signCount, transports, backupEligible, backedUp, deviceType, aaguid, name];
      try {
        return one(await sql.query<Row<WebauthnCredential>>(INSERT, [...values, timestamp(at)]));
      } catch (error) {
        if (uniqueViolation(error) !== null) return null;
        throw error;
      }
    },
    async findByCredentialId(credentialId) {
      if (credentialId.includes('\u0000')) return null;
      return one(await sql.query<Row<WebauthnCredential>>(BY_CREDENTIAL_ID, [credentialId]));
    },
    listOfUser: async (userId) => (await sql.query<Row<WebauthnCredential>>(OF_USER, [userId])).map(toPasskey),
    rename: async (userId, id, name) => (await sql.query(RENAME, [id, userId, name])).length === 1,
    deleteOfUser: async (userId, id) => one(await sql.query<Row<WebauthnCredential>>(DELETE_OF_USER, [id, userId])),
    deleteAllOfUser: async (userId) => (await sql.query<Row<WebauthnCredential>>(DELETE_ALL_OF_USER, [userId])).map(toPasskey),
    async recordUse(id, expectedCount, use, at) {
      return (await sql.query(RECORD_USE, [id, expectedCount, use.signCount, use.backedUp, timestamp(at)])).length === 1;
    },
  };
}
