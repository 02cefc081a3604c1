import type { AccessTokenRecord, AccessTokenStore, NewAccessToken } from '../oauth/store.js';
import type { AccessTokenRepository } from './access-token-repository.js';
import { coalescer } from './coalescer.js';

/** At most this many rows per INSERT: one statement (and one prepared plan per connection) per batch size. */
export const MAX_INSERT_BATCH = 16;
/** INSERTs out at once; the tokens issued meanwhile go together in the next (coalescer.ts). */
export const MAX_INSERTS_IN_FLIGHT = 2;

/**
 * Access tokens where concurrent issues outside a transaction share one multi-row INSERT (coalescer.ts says why that
 * is safe): each is answered only once its row is committed, as before. Inside a transaction tokens are written on
 * the transaction's connection, one by one.
 */
export function coalescedTokenWrites(repository: AccessTokenRepository): AccessTokenStore {
  const create = coalescer<NewAccessToken, AccessTokenRecord>(
    async (inputs) => (inputs.length === 1 ? [await repository.create(inputs[0]!)] : repository.createMany(inputs)),
    { maxBatch: MAX_INSERT_BATCH, maxInFlight: MAX_INSERTS_IN_FLIGHT },
  );
  return { ...repository, create };
}
