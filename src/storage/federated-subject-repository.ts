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
// Two rows are enough to know the email is not one user's.
const BY_VERIFIED_EMAIL = {
  name: 'federated_subject_user_by_email',
  text: 'SELECT id FROM users WHERE lower(email) = lower($1) AND email_verified LIMIT 2',
};

export function federatedSubjectRepository(sql: SqlClient): FederatedSubjectStore {
  return {
    async findUserId(issuer, subject) {
      const [row] = await sql.query<{ user_id: bigint | number | string }>(FIND, [issuer, subject]);
      return row ? Number(row.user_id) : null;
    },
    async link(issuer, subject, userId, at) {
      return (await sql.query(LINK, [issuer, subject, userId, timestamp(at)])).length > 0;
    },
    async findUserIdByVerifiedEmail(email) {
      const rows = await sql.query<{ id: bigint | number | string }>(BY_VERIFIED_EMAIL, [email]);
      return rows.length === 1 ? Number(rows[0]!.id) : null;
    },
  };
}
