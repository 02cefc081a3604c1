import type { DpopProofStore } from '../oauth/store.js';
import type { SqlClient } from './sql-client.js';
import { timestamp } from './rows.js';

// oauth_dpop_proofs: one row per DPoP proof of a request answered (a token issued, UserInfo's claims); the
// primary key decides a replay on every instance at once, and survives a restart (an in-process cache would do
// neither). A read (SEEN) refuses a replay before the request is judged further, without writing. The table keeps
// itself small: every PRUNE_EVERY proofs, an instance deletes a bounded batch of rows whose window has passed.
// Client assertions (issue 34) record their jti through the same statements (client-assertion-verification.ts).

const REMEMBER = {
  name: 'dpop_proof_remember',
  text: 'INSERT INTO oauth_dpop_proofs (proof_hash, expires_at) VALUES ($1, $2) ON CONFLICT (proof_hash) DO NOTHING RETURNING proof_hash',
};
// Several at once (coalesced-replay-records.ts): a hash twice in one batch is inserted once, the second skipped as a
// conflict, so RETURNING names it once.
const REMEMBER_MANY = {
  name: 'dpop_proofs_remember_many',
  text: `INSERT INTO oauth_dpop_proofs (proof_hash, expires_at) SELECT * FROM unnest($1::text[], $2::timestamp[])
    ON CONFLICT (proof_hash) DO NOTHING RETURNING proof_hash`,
};
const SEEN = { name: 'dpop_proof_seen', text: 'SELECT 1 AS seen FROM oauth_dpop_proofs WHERE proof_hash = $1' };
const SEEN_MANY = { name: 'dpop_proofs_seen_many', text: 'SELECT proof_hash FROM oauth_dpop_proofs WHERE proof_hash = ANY($1::text[])' };
const PRUNE = {
  name: 'dpop_proofs_prune',
  text: `DELETE FROM oauth_dpop_proofs WHERE proof_hash IN
    (SELECT proof_hash FROM oauth_dpop_proofs WHERE expires_at < $1 ORDER BY expires_at LIMIT 1000)`,
};
const PRUNE_EVERY = 200;

export interface ReplayRecord {
  proofHash: string;
  expiresAt: Date;
}

export interface DpopProofRepository extends DpopProofStore {
  /** remember for each record, in one statement: true for the first of a hash not recorded before, else false. */
  rememberMany(records: readonly ReplayRecord[]): Promise<boolean[]>;
  /** seen for each hash, in one statement. */
  seenMany(proofHashes: readonly string[]): Promise<boolean[]>;
}

export function dpopProofRepository(sql: SqlClient, now: () => Date = () => new Date()): DpopProofRepository {
  let sincePrune = 0;
  const pruneAfter = async (recorded: number) => {
    sincePrune += recorded;
    if (sincePrune < PRUNE_EVERY) return;
    sincePrune = 0;
    await sql.query(PRUNE, [timestamp(now())]);
  };
  return {
    async remember(proofHash, expiresAt) {
      const fresh = (await sql.query(REMEMBER, [proofHash, timestamp(expiresAt)])).length > 0;
      await pruneAfter(1);
      return fresh;
    },
    async rememberMany(records) {
      const rows = await sql.query<{ proof_hash: string }>(REMEMBER_MANY, [
        records.map((record) => record.proofHash),
        records.map((record) => timestamp(record.expiresAt)),
      ]);
      await pruneAfter(records.length);
      // Each inserted hash is fresh for the first record that names it only: a second one in the batch is a replay.
      const inserted = new Set(rows.map((row) => row.proof_hash));
      return records.map((record) => inserted.delete(record.proofHash));
    },
    async seen(proofHash) {
      return (await sql.query(SEEN, [proofHash])).length > 0;
    },
    async seenMany(proofHashes) {
      const found = new Set((await sql.query<{ proof_hash: string }>(SEEN_MANY, [proofHashes])).map((row) => row.proof_hash));
      return proofHashes.map((proofHash) => found.has(proofHash));
    },
  };
}
