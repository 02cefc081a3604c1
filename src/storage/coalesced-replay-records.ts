import type { DpopProofStore } from '../oauth/store.js';
import { coalescer } from './coalescer.js';
import type { DpopProofRepository, ReplayRecord } from './dpop-proof-repository.js';
import { MAX_INSERTS_IN_FLIGHT } from './coalesced-token-writes.js';

/** At most this many hashes per statement (one prepared statement serves every size: the hashes go as arrays). */
const MAX_BATCH = 64;

/**
 * The replay records (DPoP proofs, client assertions, logout tokens) where the checks and records that concurrent
 * requests make outside a transaction share one statement each (coalescer.ts says why that is safe). A FAPI client's
 * request makes two records (its assertion's jti, its proof's): six of the 18 statements of its PAR, authorization and
 * code exchange, each a system call costing the service ~100 µs (bench/RESULTS.md). Every call is still answered by a
 * statement that started after it was made: a record is refused once any earlier one of its hash has been committed,
 * and of two in one batch, the second.
 */
export function coalescedReplayRecords(repository: DpopProofRepository): DpopProofStore {
  // Records as token writes are (coalesced-token-writes.ts): at most two statements out, the rest gathering meanwhile.
  const remember = coalescer<ReplayRecord, boolean>(
    async (records) =>
      records.length === 1 ? [await repository.remember(records[0]!.proofHash, records[0]!.expiresAt)] : repository.rememberMany(records),
    { maxBatch: MAX_BATCH, maxInFlight: MAX_INSERTS_IN_FLIGHT },
  );
  // Checks as token lookups are (coalesced-token-reads.ts): batched within a turn, never held back for another batch.
  const seen = coalescer<string, boolean>(
    async (hashes) => (hashes.length === 1 ? [await repository.seen(hashes[0]!)] : repository.seenMany(hashes)),
    { maxBatch: MAX_BATCH },
  );
  return { remember: (proofHash, expiresAt) => remember({ proofHash, expiresAt }), seen };
}
