import type { FederatedSubjectStore } from '../oauth/assertions/federated-subject-store.js';
import { timestamp } from './rows.js';
import type { SqlClient } from './sql-client.js';

// oauth_federated_subjects: (issuer, subject) -> user, the primary key making the first link the only one on every
// instance at once.

const FIND = {
  name: 'federated_subject_find',
  text: 'SELECT user_id FROM oauth_federated_subjects WHERE issuer = $1 AND subject = $2',
};
const LINK = {
  name: 'federated_subject_link',
  text: `INSERT INTO oauth_federated_subjects (issuer, subject, user_id, created_at) VALUES ($1, $2, $3, $4)
    ON CONFLICT (issuer, subject) DO NOTHING RETURNING user_id`,
};
// Two rows are enough to know the email is not one user's. Verified here (email_verified_by NULL) or by provider $2
// (NULL for $2: here only, as `= NULL` is never true).
const BY_VERIFIED_EMAIL = {
  name: 'federated_subject_user_by_verified_email',
  text: `SELECT id FROM users WHERE lower(email) = lower($1) AND email_verified
    AND (email_verified_by IS NULL OR email_verified_by = $2::varchar) LIMIT 2`,
};

const BY_EMAIL = {
  name: 'federated_subject_users_by_any_email',
  text: 'SELECT id FROM users WHERE lower(email) = lower($1) ORDER BY id LIMIT $2',
};
const LINK_UPSTREAM = {
  name: 'federated_subject_link_upstream',
  text: `INSERT INTO oauth_federated_subjects (issuer, subject, user_id, created_at, provider_id, email, claims, last_signed_in_at)
    VALUES ($1, $2, $3, $4, $5, $6, $7, $4) ON CONFLICT (issuer, subject) DO NOTHING RETURNING user_id`,
};
const TOUCH_UPSTREAM = {
  name: 'federated_subject_touch_upstream',
  text: `UPDATE oauth_federated_subjects SET provider_id = $3, email = $4, claims = $5, last_signed_in_at = $6
    WHERE issuer = $1 AND subject = $2`,
};

const oneUserId = (rows: Array<{ id: bigint | number | string }>): number | null => (rows.length === 1 ? Number(rows[0]!.id) : null);

export function federatedSubjectRepository(sql: SqlClient): FederatedSubjectStore {
  return {
    async findUserId(issuer, subject) {
      const [row] = await sql.query<{ user_id: bigint | number | string }>(FIND, [issuer, subject]);
      return row ? Number(row.user_id) : null;
    },
    async link(issuer, subject, userId, at) {
      return (await sql.query(LINK, [issuer, subject, userId, timestamp(at)])).length > 0;
    },
    async findUserIdByVerifiedEmail(email, verifiedBy) {
      return oneUserId(await sql.query<{ id: bigint | number | string }>(BY_VERIFIED_EMAIL, [email, verifiedBy]));
    },
    async findUserIdsByEmail(email, limit) {
      return (await sql.query<{ id: bigint | number | string }>(BY_EMAIL, [email, limit])).map((row) => Number(row.id));
    },
    async linkUpstream({ issuer, subject, providerId, email, claims }, userId, at) {
      const values = [issuer, subject, userId, timestamp(at), providerId, email, JSON.stringify(claims)];
      return (await sql.query(LINK_UPSTREAM, values)).length > 0;
    },
    async touchUpstream({ issuer, subject, providerId, email, claims }, at) {
      await sql.query(TOUCH_UPSTREAM, [issuer, subject, providerId, email, JSON.stringify(claims), timestamp(at)]);
    },
  };
}
