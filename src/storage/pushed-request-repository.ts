import type { PushedRequestRecord, PushedRequestStore } from '../oauth/authorization/pushed-request-store.js';
import { Prisma, type OauthPushedAuthorizationRequest } from './generated/browser.js';
import { columnOf, selectList, timestamp, type Row } from './rows.js';
import type { SqlClient } from './sql-client.js';

// oauth_pushed_authorization_requests (RFC 9126): raw SQL like the device authorizations' table. Opening and
// consuming are each one conditional UPDATE, so that instances serving the same request_uri agree on one outcome.

const { reference: _reference, ...READ_FIELDS } = Prisma.OauthPushedAuthorizationRequestScalarFieldEnum;
const COLUMNS = selectList(READ_FIELDS);

type ReadRow = Omit<Row<OauthPushedAuthorizationRequest>, 'reference'>;

const toRecord = ({ id, applicationId, ...columns }: ReadRow): PushedRequestRecord => ({
  ...columns,
  id: Number(id),
  applicationId: Number(applicationId),
});

const INSERTED = ['applicationId', 'reference', 'parameters', 'createdAt', 'expiresAt'] as const;
const INSERT = {
  name: 'pushed_request_insert',
  text: `INSERT INTO oauth_pushed_authorization_requests (${INSERTED.map(columnOf).join(', ')})
    VALUES (${INSERTED.map((_, i) => `$${i + 1}`).join(', ')})`,
};
// SET reads the row as it was: the first open (opened_at NULL) moves expires_at, later ones leave it.
const OPEN = {
  name: 'pushed_request_open',
  text: `UPDATE oauth_pushed_authorization_requests
    SET opened_at = COALESCE(opened_at, $3), expires_at = CASE WHEN opened_at IS NULL THEN $4::timestamp ELSE expires_at END
    WHERE reference = $1 AND application_id = $2 AND consumed_at IS NULL AND expires_at > $3::timestamp
    RETURNING ${COLUMNS}`,
};
const FIND = { name: 'pushed_request_find', text: `SELECT ${COLUMNS} FROM oauth_pushed_authorization_requests WHERE reference = $1` };
const CONSUME = {
  name: 'pushed_request_consume',
  text: `UPDATE oauth_pushed_authorization_requests SET consumed_at = $3
    WHERE reference = $1 AND application_id = $2 AND consumed_at IS NULL AND expires_at > $3::timestamp RETURNING id`,
};

export function pushedRequestRepository(sql: SqlClient): PushedRequestStore {
  const first = async (statement: Parameters<SqlClient['query']>[0], values: unknown[]) => {
    const rows = await sql.query<ReadRow>(statement, values);
    return rows[0] ? toRecord(rows[0]) : null;
  };
  return {
    async create(request) {
      const columns = { ...request, createdAt: timestamp(request.createdAt), expiresAt: timestamp(request.expiresAt) };
      await sql.query(
        INSERT,
        INSERTED.map((field) => columns[field]),
      );
    },
    open: (reference, applicationId, at, openUntil) => first(OPEN, [reference, applicationId, timestamp(at), timestamp(openUntil)]),
    find: (reference) => first(FIND, [reference]),
    async consume(reference, applicationId, at) {
      return (await sql.query(CONSUME, [reference, applicationId, timestamp(at)])).length > 0;
    },
  };
}
