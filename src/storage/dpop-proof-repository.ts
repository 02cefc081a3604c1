import type { DpopProofStore } from '../oauth/store.js';
import type { SqlClient } from './sql-client.js';
import { timestamp } from './rows.js';

// oauth_dpop_proofs: one INSERT per DPoP proof of a request answered (a token issued, UserInfo's claims); the
// primary key decides a replay on every instance at once, and survives a restart (an in-process cache would do
// neither). A read (SEEN) refuses a replay before the request is judged further, without writing. The table keeps
// itself small: every PRUNE_EVERY proofs, an instance deletes a bounded batch of rows whose window has passed.
// Client assertions (issue 34) record their jti through the same two statements (client-assertion-verification.ts).

const REMEMBER = {
  name: 'dpop_proof_remember',
  text: 'INSERT INTO oauth_dpop_proofs (proof_hash, expires_at) VALUES ($1, $2) ON CONFLICT (proof_hash) DO NOTHING RETURNING proof_hash',
};
const SEEN = { name: 'dpop_proof_seen', text: 'SELECT 1 AS seen FROM oauth_dpop_proofs WHERE proof_hash = $1' };
const PRUNE = {
  name: 'dpop_proofs_prune',
  text: `DELETE FROM oauth_dpop_proofs WHERE proof_hash IN
    (SELECT proof_hash FROM oauth_dpop_proofs WHERE expires_at < $1 ORDER BY expires_at LIMIT 1000)`,
};
const PRUNE_EVERY = 200;

export function dpopProofRepository(sql: SqlClient, now: () => Date = () => new Date()): DpopProofStore {
  let sincePrune = 0;
  return {
    async remember(proofHash, expiresAt) {
      const fresh = (await sql.query(REMEMBER, [proofHash, timestamp(expiresAt)])).length > 0;
      if (++sincePrune >= PRUNE_EVERY) {
        sincePrune = 0;
        await sql.query(PRUNE, [timestamp(now())]);
      }
      return fresh;
    },
    async seen(proofHash) {
      return (await sql.query(SEEN, [proofHash])).length > 0;
    },
  };
}
