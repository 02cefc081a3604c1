// Issue 29 item 5 (oauth/clients/registration/unused-clients.ts) in SQL: which self-registered clients are unused, which of those have
// expired, and the live ones the caps count. `tokens cleanup` (cleanup.ts) deletes by the same condition.

/**
 * The row `t` is a self-registered client never used: no used_at, no admin approval, and no token row either (a
 * client whose tokens predate used_at tracking is in use, whatever used_at says).
 */
export const UNUSED_SELF_REGISTERED = `t.registered_by IN ('dynamic', 'metadata_document') AND t.used_at IS NULL
  AND t.approved_at IS NULL AND NOT EXISTS (SELECT 1 FROM oauth_access_tokens used WHERE used.application_id = t.id)`;

/**
 * $1 the kind (registered_by), $2 the instant before which unused ones have expired. oauth_applications has no
 * index on registered_by: its rows are few (the caps bound the self-registered ones).
 */
export const COUNT_LIVE_CLIENTS = {
  name: 'applications_count_live_self_registered',
  text: `SELECT count(*)::int AS count FROM oauth_applications t
    WHERE t.registered_by = $1 AND NOT (t.created_at < $2::timestamp AND ${UNUSED_SELF_REGISTERED})`,
};

/** At most $2 clients expired unused before $1, oldest first; their codes go with them (ON DELETE CASCADE). */
export const DELETE_EXPIRED_UNUSED_CLIENTS = `DELETE FROM oauth_applications WHERE id IN (
    SELECT t.id FROM oauth_applications t WHERE t.created_at < $1::timestamp AND ${UNUSED_SELF_REGISTERED}
    ORDER BY t.created_at, t.id LIMIT $2::int)
  RETURNING id`;

/** $1 the id of a client that looked expired unused, $2 as above: deleted only if it still is (RETURNING id). */
export const DELETE_EXPIRED_UNUSED_CLIENT = `DELETE FROM oauth_applications t
  WHERE t.id = $1::bigint AND t.created_at < $2::timestamp AND ${UNUSED_SELF_REGISTERED}
  RETURNING t.id`;
