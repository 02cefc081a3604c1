import type { AccessTokenRecord, TokenReadStore } from '../oauth/store.js';
import { coalescer } from './coalescer.js';

/** At most this many tokens per lookup statement: the connections a busy instance answers at once, and a bound on
 * the prepared statements (one per batch size) each connection keeps. */
export const MAX_LOOKUP_BATCH = 16;

/**
 * Token reads where concurrent single-token lookups (every introspection, every Bearer-authenticated request) share
 * one statement (coalescer.ts says why that is safe). Only for reads outside a transaction: a transaction's reads
 * must see its own writes, on its own connection.
 */
export function coalescedTokenReads(reads: TokenReadStore): TokenReadStore {
  const findOne = coalescer<string, AccessTokenRecord | null>(
    async (tokens) => {
      if (tokens.length === 1) return [await reads.findByToken(tokens[0]!)];
      const found = new Map((await reads.findByTokens([...tokens])).map((record) => [record.token, record]));
      return tokens.map((token) => found.get(token) ?? null);
    },
    { maxBatch: MAX_LOOKUP_BATCH },
  );
  return {
    findByToken: findOne,
    findByTokens: (tokens) => reads.findByTokens(tokens),
    findByRefreshToken: (refreshToken) => reads.findByRefreshToken(refreshToken),
  };
}
