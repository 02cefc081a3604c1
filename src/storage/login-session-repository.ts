import type { LoginSessionRecord, LoginSessionStore } from '../oauth/sessions/login-session-store.js';
import { Prisma, type LoginSession, type User } from './generated/browser.js';
import { columnOf, selectList, timestamp, type Row } from './rows.js';
import type { SqlClient } from './sql-client.js';
import { toUser } from './user-repository.js';

// login_sessions (issue 35 item 5): raw SQL, as every request of a signed-in browser reads its row (with the user, in
// one statement). An ended session's row is deleted, so "no row" is the one answer every instance gives for it.

const COLUMNS = selectList(Prisma.LoginSessionScalarFieldEnum);
const SESSION_FIELDS = Object.keys(Prisma.LoginSessionScalarFieldEnum);
// The session's columns beside the user's in one row: prefixed, since both tables have an id and a created_at.
const PREFIXED = SESSION_FIELDS.map((field) => `s.${columnOf(field)} AS "session.${field}"`).join(', ');

const toSession = ({ id, userId, ...columns }: Row<LoginSession>): LoginSessionRecord => ({
  ...columns,
  id: Number(id),
  userId: Number(userId),
  amr: columns.amr ?? [],
});

// Only while the user's password is the one the sign-in read (FOR SHARE: a password change being written waits for
// this row, or this waits for it and then finds the new hash): a sign-in with the old password that finishes while the
// password changes would otherwise leave a session that "Sign out my other sessions" had already passed by.
const INSERT = `INSERT INTO login_sessions (session_id, openid_session_id, user_id, auth_time, amr, acr, ip, user_agent,
    created_at, last_seen_at, upstream_provider_id, upstream_subject, upstream_session_id, upstream_id_token)
  SELECT $1::varchar, $2::varchar, u.id, $4::timestamp, $5::text[], $6::varchar, $7::varchar, $8::varchar, $9::timestamp,
    $9::timestamp, $10::varchar, $11::varchar, $12::varchar, $13::text
  FROM users u WHERE u.id = $3::bigint AND u.password_hash IS NOT DISTINCT FROM $14::text FOR SHARE OF u
  RETURNING ${COLUMNS}`;
const FIND_WITH_USER = {
  name: 'login_session_with_user',
  text: `SELECT ${PREFIXED}, ${selectList(Prisma.UserScalarFieldEnum, 'u')}
    FROM login_sessions s JOIN users u ON u.id = s.user_id WHERE s.session_id = $1`,
};
const MARK_SEEN = {
  name: 'login_session_seen',
  text: 'UPDATE login_sessions SET last_seen_at = $2 WHERE id = $1 AND last_seen_at < $3',
};
const LIST_OF_USER = `SELECT ${COLUMNS} FROM login_sessions WHERE user_id = $1 AND last_seen_at >= $2 ORDER BY auth_time DESC, id DESC`;
const DELETE_BY_SESSION_ID = `DELETE FROM login_sessions WHERE session_id = $1 RETURNING ${COLUMNS}`;
const DELETE_OTHERS_OF_USER = `DELETE FROM login_sessions WHERE user_id = $1 AND id <> $2 RETURNING ${COLUMNS}`;
const DELETE_ALL_OF_USER = `DELETE FROM login_sessions WHERE user_id = $1 RETURNING ${COLUMNS}`;
// Back-Channel Logout 1.0 section 2.4: a sid names one upstream session; a sub alone, all of that user's there.
const DELETE_OF_UPSTREAM = `DELETE FROM login_sessions WHERE upstream_provider_id = ANY($1::varchar[])
  AND ($2::varchar IS NULL OR upstream_session_id = $2) AND ($3::varchar IS NULL OR upstream_subject = $3) RETURNING ${COLUMNS}`;
const DELETE_OF_USER = `DELETE FROM login_sessions WHERE id = $1 AND user_id = $2 RETURNING ${COLUMNS}`;

function splitJoined(row: Record<string, unknown>): { session: LoginSessionRecord; user: ReturnType<typeof toUser> } {
  const session: Record<string, unknown> = {};
  const user: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(row)) {
    if (name.startsWith('session.')) session[name.slice('session.'.length)] = value;
    else user[name] = value;
  }
  return { session: toSession(session as Row<LoginSession>), user: toUser(user as Row<User>) };
}

export function loginSessionRepository(sql: SqlClient): LoginSessionStore {
  const one = (rows: Row<LoginSession>[]) => (rows[0] ? toSession(rows[0]) : null);
  return {
    async create(session, at, whilePasswordHash) {
      const ids = [session.sessionId, session.openidSessionId, session.userId];
      const signIn = [timestamp(session.authTime), session.amr, session.acr, session.ip, session.userAgent];
      const upstream = [session.upstreamProviderId, session.upstreamSubject, session.upstreamSessionId, session.upstreamIdToken];
      const [row] = await sql.query<Row<LoginSession>>(INSERT, [...ids, ...signIn, timestamp(at), ...upstream, whilePasswordHash]);
      return row ? toSession(row) : null;
    },
    async findWithUser(sessionId) {
      const [row] = await sql.query(FIND_WITH_USER, [sessionId]);
      return row ? splitJoined(row) : null;
    },
    async markSeen(id, at, unlessSeenSince) {
      await sql.query(MARK_SEEN, [id, timestamp(at), timestamp(unlessSeenSince)]);
    },
    async listOfUser(userId, seenSince) {
      return (await sql.query<Row<LoginSession>>(LIST_OF_USER, [userId, timestamp(seenSince)])).map(toSession);
    },
    deleteBySessionId: async (sessionId) => one(await sql.query<Row<LoginSession>>(DELETE_BY_SESSION_ID, [sessionId])),
    deleteOthersOfUser: async (userId, keepId) =>
      (await sql.query<Row<LoginSession>>(DELETE_OTHERS_OF_USER, [userId, keepId])).map(toSession),
    deleteAllOfUser: async (userId) => (await sql.query<Row<LoginSession>>(DELETE_ALL_OF_USER, [userId])).map(toSession),
    async deleteOfUpstream(providerIds, { sessionId, subject }) {
      // Nothing to match on is no logout of everybody.
      if (sessionId === null && subject === null) return [];
      return (await sql.query<Row<LoginSession>>(DELETE_OF_UPSTREAM, [providerIds, sessionId, subject])).map(toSession);
    },
    deleteOfUser: async (userId, id) => one(await sql.query<Row<LoginSession>>(DELETE_OF_USER, [id, userId])),
  };
}
