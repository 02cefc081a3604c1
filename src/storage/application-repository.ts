import type { ApplicationStore } from '../oauth/store.js';
import { toApplication, type ApplicationRow } from './rows.js';
import type { SqlClient } from './sql-client.js';

const COLUMNS = 'id, name, uid, secret, redirect_uri, scopes, confidential, created_at, updated_at';

/** The reads client authentication needs on every request; writes go through application-admin.ts. */
export function applicationRepository(sql: SqlClient): ApplicationStore {
  return {
    async findByUid(uid) {
      // PostgreSQL text cannot hold NUL: such a uid matches nothing (and must not become a driver error).
      if (uid.includes('\u0000')) return null;
      const rows = await sql.query<ApplicationRow>(
        { name: 'application_by_uid', text: `SELECT ${COLUMNS} FROM oauth_applications WHERE uid = $1` },
        [uid],
      );
      return rows[0] ? toApplication(rows[0]) : null;
    },
    async findById(id) {
      const rows = await sql.query<ApplicationRow>(
        { name: 'application_by_id', text: `SELECT ${COLUMNS} FROM oauth_applications WHERE id = $1` },
        [id],
      );
      return rows[0] ? toApplication(rows[0]) : null;
    },
  };
}
