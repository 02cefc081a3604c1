import type { UserStore } from '../oauth/store.js';
import { toUser, type UserRow } from './rows.js';
import type { SqlClient } from './sql-client.js';

const COLUMNS = 'id, username, password_hash, created_at, updated_at';

export function userRepository(sql: SqlClient): UserStore {
  return {
    async findByUsername(username) {
      // PostgreSQL text cannot hold NUL: such a name matches nobody (and must not become a driver error).
      if (username.includes('\u0000')) return null;
      const rows = await sql.query<UserRow>(`SELECT ${COLUMNS} FROM users WHERE username = $1`, [username]);
      return rows[0] ? toUser(rows[0]) : null;
    },
    async findById(id) {
      const rows = await sql.query<UserRow>(`SELECT ${COLUMNS} FROM users WHERE id = $1`, [id]);
      return rows[0] ? toUser(rows[0]) : null;
    },
  };
}
