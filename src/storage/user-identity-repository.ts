import type { UserIdentityRecord, UserIdentityStore } from '../oauth/users/user-identity-store.js';
import { Prisma, type OauthFederatedSubject } from './generated/browser.js';
import { selectList, type Row } from './rows.js';
import type { SqlClient } from './sql-client.js';

// oauth_federated_subjects as a user's identities (issue 37): listed and removed by the user, the admin or the CLI.
// federated-subject-repository.ts is the sign-in's side of the same table.

const COLUMNS = selectList(Prisma.OauthFederatedSubjectScalarFieldEnum);

const OF_USER = `SELECT ${COLUMNS} FROM oauth_federated_subjects WHERE user_id = $1 ORDER BY created_at, issuer, subject`;
const DELETE_OF_USER = `DELETE FROM oauth_federated_subjects WHERE issuer = $1 AND subject = $2 AND user_id = $3 RETURNING ${COLUMNS}`;

// The claims column is not part of the record: the pages show the email, and the claims stay the sign-in's.
const toIdentity = ({
  userId,
  issuer,
  subject,
  providerId,
  email,
  createdAt,
  lastSignedInAt,
}: Row<OauthFederatedSubject>): UserIdentityRecord => ({
  issuer,
  subject,
  userId: Number(userId),
  providerId,
  email,
  createdAt,
  lastSignedInAt,
});

export function userIdentityRepository(sql: SqlClient): UserIdentityStore {
  const list = async (text: string, userId: number) => (await sql.query<Row<OauthFederatedSubject>>(text, [userId])).map(toIdentity);
  return {
    listOfUser: (userId) => list(OF_USER, userId),
    lockOfUser: (userId) => list(`${OF_USER} FOR UPDATE`, userId),
    async deleteOfUser(userId, { issuer, subject }) {
      // A NUL byte cannot be in a VARCHAR: PostgreSQL would refuse the statement, and no row has it anyway.
      if (`${issuer}${subject}`.includes('\u0000')) return null;
      const [row] = await sql.query<Row<OauthFederatedSubject>>(DELETE_OF_USER, [issuer, subject, userId]);
      return row ? toIdentity(row) : null;
    },
  };
}
