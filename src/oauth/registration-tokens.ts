import { InvalidToken } from './errors.js';
import { generateSecret, sha256Hex } from './secrets.js';
import type { ApplicationInput, ApplicationRecord } from './store.js';
import type { SelfRegistered } from './unused-clients.js';

// Initial access tokens (RFC 7591 section 3, policy initialAccessToken): an admin makes one with
// `oauth-service registration-tokens create`, and a client presents it as a Bearer token to register. Only the
// SHA-256 hex of a token is stored; the plain token is shown once, when it is made.

export interface RegistrationTokenRecord {
  id: number;
  /** SHA-256 hex of the token. */
  token: string;
  /** Registrations it may still make; null: unlimited until it expires. */
  usesRemaining: number | null;
  expiresAt: Date | null;
  createdAt: Date;
  revokedAt: Date | null;
}

/** oauth_registration_tokens, and what registration must do under one lock (storage/registration-token-repository.ts). */
export interface RegistrationStore {
  createToken(input: Pick<RegistrationTokenRecord, 'token' | 'usesRemaining' | 'expiresAt'>): Promise<RegistrationTokenRecord>;
  listTokens(): Promise<RegistrationTokenRecord[]>;
  /** Sets revoked_at unless set already; false when there is no such live token. */
  revokeToken(id: number, at: Date): Promise<boolean>;
  /** The token by its hash when it could register at `at` (unrevoked, unexpired, a use left); nothing is used. */
  findUsableToken(token: string, at: Date): Promise<RegistrationTokenRecord | null>;
  /** Uses the token once, checked and decremented in one statement; false when it could not register at `at`. */
  useToken(token: string, at: Date): Promise<boolean>;
  /**
   * How many live clients of this kind are stored, counted in SQL: used (used_at or a token), approved, or
   * registered at or after `expiredBefore` (unused-clients.ts; issue 29 item 5).
   */
  countLiveClients(kind: SelfRegistered, expiredBefore: Date): Promise<number>;
  /**
   * Runs `work` while no other registration runs, in any process (a PostgreSQL advisory lock): the cap holds. The
   * lock and every statement of `work` share one transaction on one connection (`locked`), so a pool of one
   * connection cannot wait on itself, and the lock goes with the commit or the rollback.
   */
  exclusively<T>(work: (locked: LockedRegistrations) => Promise<T>): Promise<T>;
}

/** What a registration does under the lock, in the lock's transaction. */
export interface LockedRegistrations {
  countLiveClients(kind: SelfRegistered, expiredBefore: Date): Promise<number>;
  /** Deletes at most `limit` self-registered clients that expired unused (registered before `expiredBefore`); how many. */
  deleteExpiredUnusedClients(expiredBefore: Date, limit: number): Promise<number>;
  useToken(token: string, at: Date): Promise<boolean>;
  /**
   * The new client's row (UidTaken if its uid exists), registered at `createdAt`: the domain's clock, which its
   * expiry when unused is measured by (unused-clients.ts).
   */
  createApplication(input: ApplicationInput & { uid: string; createdAt: Date }): Promise<ApplicationRecord>;
}

type TokenDeps = { stores: { registrations: RegistrationStore }; now: () => Date };

export interface NewRegistrationToken {
  /** Shown once: only its hash is stored. */
  plainToken: string;
  record: RegistrationTokenRecord;
}

export const MAX_TOKEN_USES = 1_000_000;
export const MAX_TOKEN_SECONDS = 10 * 365 * 86_400;

/** A new initial access token: `uses` registrations (null: unlimited), until `expiresInSeconds` (null: never). */
export async function createRegistrationToken(
  deps: TokenDeps,
  { uses, expiresInSeconds }: { uses: number | null; expiresInSeconds: number | null },
): Promise<NewRegistrationToken> {
  if (uses !== null && !(Number.isInteger(uses) && uses >= 1 && uses <= MAX_TOKEN_USES)) throw new RangeError('uses out of range');
  if (expiresInSeconds !== null && !(Number.isInteger(expiresInSeconds) && expiresInSeconds >= 1 && expiresInSeconds <= MAX_TOKEN_SECONDS))
    throw new RangeError('expiresInSeconds out of range');
  const plainToken = generateSecret();
  const expiresAt = expiresInSeconds === null ? null : new Date(deps.now().getTime() + expiresInSeconds * 1000);
  const record = await deps.stores.registrations.createToken({ token: sha256Hex(plainToken), usesRemaining: uses, expiresAt });
  return { plainToken, record };
}

/** Whether a token may register now: 'usable', or why not. */
export function tokenState(record: RegistrationTokenRecord, now: Date): 'usable' | 'revoked' | 'expired' | 'used up' {
  if (record.revokedAt !== null) return 'revoked';
  if (record.expiresAt !== null && record.expiresAt <= now) return 'expired';
  if (record.usesRemaining !== null && record.usesRemaining <= 0) return 'used up';
  return 'usable';
}

/** RFC 7591 section 3 / RFC 6750 section 3.1: a missing, unknown, revoked, expired or used-up token is invalid_token. */
export async function checkInitialAccessToken(deps: TokenDeps, token: string | null): Promise<string> {
  const hash = sha256Hex(token ?? '');
  if (token === null || !(await deps.stores.registrations.findUsableToken(hash, deps.now()))) throw new InvalidToken();
  return hash;
}

/** Uses the checked token once; another request may have used its last use in the meantime (invalid_token). */
export async function useInitialAccessToken(locked: Pick<LockedRegistrations, 'useToken'>, hash: string, at: Date): Promise<void> {
  if (!(await locked.useToken(hash, at))) throw new InvalidToken();
}

export function listRegistrationTokens(deps: TokenDeps): Promise<RegistrationTokenRecord[]> {
  return deps.stores.registrations.listTokens();
}

/** The token stops working at once; false when there is no such token or it was revoked already. */
export function revokeRegistrationToken(deps: TokenDeps, id: number): Promise<boolean> {
  return deps.stores.registrations.revokeToken(id, deps.now());
}
