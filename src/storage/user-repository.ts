import type { UserAdminStore, UserRecord, UserStore } from '../oauth/store.js';
import { UsernameTaken } from '../oauth/store.js';
import { Prisma, type User } from './generated/browser.js';
import type { PrismaClient } from './generated/client.js';
import { uniqueViolation } from './prisma-errors.js';
import { selectList, type Row } from './rows.js';
import type { SqlClient } from './sql-client.js';

// users. Logins and the password grant read it (raw SQL, inside a transaction when the domain runs one), and so
// do the listing and the search; the admin UI, the CLI and the tests write it through Prisma.

const USER_COLUMNS = selectList(Prisma.UserScalarFieldEnum);

// Username, name or email containing the text in any case, as the admin's search box and `users list --search` ask.
const SEARCH = `SELECT ${USER_COLUMNS} FROM users WHERE username ILIKE $1 OR name ILIKE $1 OR email ILIKE $1 ORDER BY username LIMIT $2`;

/** The table's one mapper: every column is its record field as it is, but the id. */
export const toUser = ({ id, ...columns }: Row<User>): UserRecord => ({ ...columns, id: Number(id) });

export function userRepository(sql: SqlClient, prisma: PrismaClient): UserStore & UserAdminStore {
  const one = (rows: Row<User>[]) => (rows[0] ? toUser(rows[0]) : null);
  return {
    async findByUsername(username) {
      // PostgreSQL text cannot hold NUL: such a name matches nobody (and must not become a driver error).
      if (username.includes('\u0000')) return null;
      return one(await sql.query<Row<User>>(`SELECT ${USER_COLUMNS} FROM users WHERE username = $1`, [username]));
    },
    findById: async (id) => one(await sql.query<Row<User>>(`SELECT ${USER_COLUMNS} FROM users WHERE id = $1`, [id])),
    async findBySubject(subject) {
      if (subject.includes('\u0000')) return null;
      return one(await sql.query<Row<User>>(`SELECT ${USER_COLUMNS} FROM users WHERE subject = $1`, [subject]));
    },
    list: async () => (await sql.query<Row<User>>(`SELECT ${USER_COLUMNS} FROM users ORDER BY id`)).map(toUser),
    async search({ text, limit }) {
      // PostgreSQL text cannot hold NUL: such a search matches nobody.
      if (text.includes('\u0000')) return [];
      // % and _ are matched literally once escaped (backslash is LIKE's escape character).
      const pattern = `%${text.replace(/[\\%_]/g, '\\$&')}%`;
      return (await sql.query<Row<User>>(SEARCH, [pattern, limit])).map(toUser);
    },
    async create(input) {
      try {
        return toUser(await prisma.user.create({ data: input }));
      } catch (error) {
        if (uniqueViolation(error)) throw new UsernameTaken(input.username);
        throw error;
      }
    },
    async updateClaims(id, claims, profileUpdatedAt) {
      const updated = await prisma.user.updateManyAndReturn({ where: { id }, data: { ...claims, profileUpdatedAt } });
      return updated[0] ? toUser(updated[0]) : null;
    },
    async setDisabledAt(id, disabledAt) {
      const updated = await prisma.user.updateManyAndReturn({ where: { id }, data: { disabledAt } });
      return updated[0] ? toUser(updated[0]) : null;
    },
    async setPasswordHash(username, passwordHash, only) {
      const where = { username, ...(only && { passwordHash: only.passwordHash }) };
      const result = await prisma.user.updateMany({ where, data: { passwordHash } });
      return result.count > 0;
    },
    async delete(username) {
      return (await prisma.user.deleteMany({ where: { username } })).count > 0;
    },
  };
}
