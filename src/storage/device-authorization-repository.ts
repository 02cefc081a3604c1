import type {
  DeviceAuthorizationRecord,
  DeviceAuthorizationStatus,
  DeviceAuthorizationStore,
} from '../oauth/device/device-authorization-store.js';
import { Prisma, type OauthDeviceAuthorization } from './generated/browser.js';
import { columnOf, joinedOrNull, selectList, splitList, timestamp, type Row } from './rows.js';
import type { SqlClient } from './sql-client.js';
import { storing } from './prisma-errors.js';

// oauth_device_authorizations (RFC 8628): raw SQL like the codes' table. Every change of state is one conditional
// UPDATE, so that instances polling and deciding at once agree on one outcome.

const { deviceCode: _deviceCode, userCode: _userCode, ...READ_FIELDS } = Prisma.OauthDeviceAuthorizationScalarFieldEnum;
const COLUMNS = selectList(READ_FIELDS);

type ReadRow = Omit<Row<OauthDeviceAuthorization>, 'deviceCode' | 'userCode'>;

const toRecord = ({
  id,
  applicationId,
  resourceOwnerId,
  scopes,
  audience,
  status,
  amr,
  ...columns
}: ReadRow): DeviceAuthorizationRecord => ({
  ...columns,
  id: Number(id),
  applicationId: Number(applicationId),
  resourceOwnerId: resourceOwnerId === null ? null : Number(resourceOwnerId),
  scopes: splitList(scopes),
  audience: splitList(audience),
  status: status as DeviceAuthorizationStatus,
  amr: splitList(amr),
});

const INSERTED = ['applicationId', 'deviceCode', 'userCode', 'scopes', 'audience', 'createdAt', 'expiresAt', 'interval'] as const;
const INSERT = `INSERT INTO oauth_device_authorizations (${INSERTED.map(columnOf).join(', ')})
  VALUES (${INSERTED.map((_, i) => `$${i + 1}`).join(', ')}) ON CONFLICT (user_code) DO NOTHING RETURNING ${COLUMNS}`;
const BY_DEVICE_CODE = {
  name: 'device_authorization_by_device_code',
  text: `SELECT ${COLUMNS} FROM oauth_device_authorizations WHERE device_code = $1`,
};
const BY_USER_CODE = {
  name: 'device_authorization_by_user_code',
  text: `SELECT ${COLUMNS} FROM oauth_device_authorizations WHERE user_code = $1`,
};
// The poll and the read at once. The UPDATE's row is the latest version (of two polls at once, the second waits and
// finds last_polled_at moved: slow_down); the SELECT sees the row as it was when the statement began, so an interval
// grown by this statement means slow_down.
const FIND_AND_POLL = {
  name: 'device_authorization_find_and_poll',
  text: `WITH polled AS (
      UPDATE oauth_device_authorizations d SET last_polled_at = $3,
        interval = CASE WHEN d.last_polled_at + make_interval(secs => d.interval) > $3::timestamp THEN d.interval + 5 ELSE d.interval END
      WHERE d.device_code = $1 AND d.application_id = $2 AND d.status = 'pending' AND d.expires_at > $3::timestamp
      RETURNING d.interval
    )
    SELECT ${COLUMNS}, (SELECT interval FROM polled) AS polled_interval FROM oauth_device_authorizations WHERE device_code = $1`,
};
const COUNT_ENTRY = {
  name: 'device_authorization_entry',
  text: `UPDATE oauth_device_authorizations SET entries = entries + 1 WHERE id = $1 AND status = 'pending' RETURNING entries`,
};
const DECIDE = `UPDATE oauth_device_authorizations
  SET status = $2, resource_owner_id = $3, auth_time = $4, session_id = $5, amr = $6, acr = $7, decided_at = $8
  WHERE id = $1 AND status = 'pending' RETURNING id`;
const CONSUME = `UPDATE oauth_device_authorizations SET status = 'used' WHERE id = $1 AND status = 'approved' RETURNING id`;
// Only rows with an approver have an owner: a pending row is nobody's until it is decided.
const DENY_APPROVED = `UPDATE oauth_device_authorizations SET status = 'denied'
  WHERE resource_owner_id = $1 AND ($2::bigint IS NULL OR application_id = $2) AND status = 'approved'
    AND expires_at > $3::timestamp RETURNING id`;

export function deviceAuthorizationRepository(sql: SqlClient): DeviceAuthorizationStore {
  const first = async (statement: Parameters<SqlClient['query']>[0], values: unknown[]) => {
    const rows = await sql.query<ReadRow>(statement, values);
    return rows[0] ? toRecord(rows[0]) : null;
  };
  return {
    async create(authorization) {
      const columns: Record<string, unknown> = {
        ...authorization,
        scopes: authorization.scopes.join(' '),
        audience: joinedOrNull(authorization.audience),
        createdAt: timestamp(authorization.createdAt),
        expiresAt: timestamp(authorization.expiresAt),
      };
      const rows = await storing(() =>
        sql.query<ReadRow>(
          INSERT,
          INSERTED.map((field) => columns[field] ?? null),
        ),
      );
      return rows[0] ? toRecord(rows[0]) : null;
    },
    findByDeviceCode: (hash) => first(BY_DEVICE_CODE, [hash]),
    async findAndPoll(hash, applicationId, at) {
      const [row] = await sql.query<ReadRow & { polled_interval: number | null }>(FIND_AND_POLL, [hash, applicationId, timestamp(at)]);
      if (!row) return null;
      const { polled_interval: polled, ...columns } = row;
      const authorization = toRecord(columns);
      if (polled === null) return { authorization, poll: null };
      return { authorization, poll: { outcome: polled > authorization.interval ? 'slow_down' : 'ok', interval: polled } };
    },
    findByUserCode: (hash) => first(BY_USER_CODE, [hash]),
    async countEntry(id) {
      const rows = await sql.query<{ entries: number }>(COUNT_ENTRY, [id]);
      return rows[0] ? rows[0].entries : null;
    },
    async decide(id, decision, at) {
      const values = decision
        ? [
            'approved',
            decision.resourceOwnerId,
            decision.authTime && timestamp(decision.authTime),
            decision.sessionId,
            joinedOrNull(decision.amr),
            decision.acr,
          ]
        : ['denied', null, null, null, null, null];
      return (await sql.query(DECIDE, [id, ...values, timestamp(at)])).length > 0;
    },
    async consume(id) {
      return (await sql.query(CONSUME, [id])).length > 0;
    },
    async denyApprovedFor(resourceOwnerId, applicationId, at) {
      return (await sql.query(DENY_APPROVED, [resourceOwnerId, applicationId, timestamp(at)])).length;
    },
  };
}
