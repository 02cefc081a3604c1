import type { ApplicationInput, ApplicationRecord } from '../application-store.js';
import type { SelfRegistered } from './unused-clients.js';

// The storage interface of registration (storage/registration-token-repository.ts): initial access tokens
// (oauth_registration_tokens, RFC 7591 section 3) and what a registration does under the one lock every registration
// takes (the caps of registration-cap.ts). Part of store.ts's Stores.

export interface RegistrationTokenRecord {
  id: number;
  /** SHA-256 hex of the token. */
  token: string;
  /** Registrations it may still make; null: unlimited until it expires. */
  usesRemaining: number | null;
  expiresAt: Date | null;
  createdAt: Date;
  revokedAt: Date | null;
  /**
   * Issue 29: the grant types and scopes a client registered with this token may have beyond the registration
   * policy (registration.allowedGrantTypes / allowedScopes); remembered on that client's row.
   */
  grantTypes: string[];
  scopes: string[];
}

/** oauth_registration_tokens, and what registration must do under one lock (storage/registration-token-repository.ts). */
export interface RegistrationStore {
  createToken(
    input: Pick<RegistrationTokenRecord, 'token' | 'usesRemaining' | 'expiresAt' | 'grantTypes' | 'scopes'>,
  ): Promise<RegistrationTokenRecord>;
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
  /** Deletes this client if it is still a self-registered one that expired unused; whether it did. */
  deleteExpiredUnusedClient(id: number, expiredBefore: Date): Promise<boolean>;
  useToken(token: string, at: Date): Promise<boolean>;
  /**
   * The new client's row (UidTaken if its uid exists), registered at `createdAt`: the domain's clock, which its
   * expiry when unused is measured by (unused-clients.ts).
   */
  createApplication(input: ApplicationInput & { uid: string; createdAt: Date }): Promise<ApplicationRecord>;
}
