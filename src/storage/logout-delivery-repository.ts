import type { LogoutDeliveryRecord, LogoutDeliveryStore } from '../oauth/openid/backchannel-logout/logout-delivery-store.js';
import { toApplication } from './application-repository.js';
import { Prisma, type OauthApplication, type OauthLogoutDelivery } from './generated/browser.js';
import { selectList, timestamp, type Row } from './rows.js';
import type { SqlClient } from './sql-client.js';

// oauth_logout_deliveries (Back-Channel Logout 1.0): the logout tokens still to POST, written with the logout or
// revocation that causes them and taken by whichever instance's worker finds them due first. Raw SQL: the claim is
// one UPDATE over a SELECT ... FOR UPDATE SKIP LOCKED, which Prisma cannot say.

const COLUMNS = selectList(Prisma.OauthLogoutDeliveryScalarFieldEnum);

const toDelivery = ({ id, applicationId, ...columns }: Row<OauthLogoutDelivery>): LogoutDeliveryRecord => ({
  ...columns,
  id: Number(id),
  applicationId: Number(applicationId),
});

// The applications (whole rows, read on the caller's connection: inside a revocation's transaction too) with a
// back-channel logout URI (section 2.2: the others get no logout token) among the distinct (application, session)
// pairs of the tokens `tokens` selects.
const clientsOf = (tokens: string) => `SELECT ${selectList(Prisma.OauthApplicationScalarFieldEnum, 'a')}, s.session_id AS "loggedInSession"
  FROM (SELECT DISTINCT application_id, session_id FROM oauth_access_tokens t WHERE ${tokens}) s
  JOIN oauth_applications a ON a.id = s.application_id AND a.backchannel_logout_uri IS NOT NULL ORDER BY a.id`;

type ClientRow = Row<OauthApplication> & { loggedInSession: string | null };

const CLIENTS_OF_SESSION = { name: 'logout_clients_of_session', text: clientsOf('t.resource_owner_id = $1 AND t.session_id = $2') };
const CLIENTS_HOLDING_TOKENS = {
  name: 'logout_clients_holding_tokens',
  text: clientsOf('t.resource_owner_id = $1 AND t.revoked_at IS NULL AND ($2::bigint IS NULL OR t.application_id = $2)'),
};

const CLAIM = {
  name: 'logout_deliveries_claim',
  text: `UPDATE oauth_logout_deliveries d SET attempts = d.attempts + 1, next_attempt_at = $2
    WHERE d.id IN (SELECT id FROM oauth_logout_deliveries
      WHERE delivered_at IS NULL AND failed_at IS NULL AND next_attempt_at <= $1
      ORDER BY next_attempt_at, id LIMIT $3 FOR UPDATE SKIP LOCKED)
    RETURNING ${COLUMNS}`,
};

// An attempt's end: delivered ($2), given up ($3), or due again at $4; the latest failure's reason ($5).
const SETTLE = {
  name: 'logout_delivery_settle',
  text: `UPDATE oauth_logout_deliveries
    SET delivered_at = $2, failed_at = $3, next_attempt_at = COALESCE($4, next_attempt_at), last_error = $5 WHERE id = $1`,
};

const toClientSession = ({ loggedInSession, ...application }: ClientRow) => ({
  application: toApplication(application),
  sessionId: loggedInSession,
});

export function logoutDeliveryRepository(sql: SqlClient): LogoutDeliveryStore {
  return {
    async clientsOfSession(resourceOwnerId, sessionId) {
      return (await sql.query<ClientRow>(CLIENTS_OF_SESSION, [resourceOwnerId, sessionId])).map(toClientSession);
    },
    async clientsHoldingTokens(resourceOwnerId, applicationId) {
      return (await sql.query<ClientRow>(CLIENTS_HOLDING_TOKENS, [resourceOwnerId, applicationId])).map(toClientSession);
    },
    async add(deliveries, at) {
      if (deliveries.length === 0) return;
      const values: unknown[] = [timestamp(at)];
      const tuples = deliveries.map((delivery) => {
        values.push(delivery.applicationId, delivery.subject, delivery.sessionId);
        const n = values.length;
        return `($${n - 2}, $${n - 1}, $${n}, $1, $1)`;
      });
      await sql.query(
        `INSERT INTO oauth_logout_deliveries (application_id, subject, session_id, next_attempt_at, created_at) VALUES ${tuples.join(', ')}`,
        values,
      );
    },
    async claimDue(at, leaseUntil, limit) {
      const rows = await sql.query<Row<OauthLogoutDelivery>>(CLAIM, [timestamp(at), timestamp(leaseUntil), limit]);
      return rows.map(toDelivery).sort((a, b) => a.id - b.id);
    },
    async settle(id, settlement) {
      const at = timestamp(settlement.at);
      await sql.query(SETTLE, [
        id,
        settlement.outcome === 'delivered' ? at : null,
        settlement.outcome === 'failed' ? at : null,
        settlement.outcome === 'retry' ? timestamp(settlement.retryAt) : null,
        settlement.outcome === 'delivered' ? null : settlement.error,
      ]);
    },
  };
}
