import type { ApplicationRecord } from '../../clients/application-store.js';

// The storage OpenID Connect Back-Channel Logout 1.0 needs: which clients the user had a session with (section 2.3,
// "remembering logged-in RPs": the tokens they were issued, which carry the login session's sid), and the table of
// logout tokens still to deliver, shared by every instance and kept across restarts.

/** One logout token to POST to one client: the claims that are the client's, and the delivery's progress. */
export interface LogoutDeliveryRecord {
  id: number;
  applicationId: number;
  /** The sub claim (the user as this client knows them); null: sid only. */
  subject: string | null;
  /** The login session that ended (its own id: each client's sid is derived from it); null: every session at the client. */
  sessionId: string | null;
  /** Attempts made, the one under way included once claimed. */
  attempts: number;
  nextAttemptAt: Date;
  createdAt: Date;
  deliveredAt: Date | null;
  failedAt: Date | null;
  lastError: string | null;
}

export type NewLogoutDelivery = Pick<LogoutDeliveryRecord, 'applicationId' | 'subject' | 'sessionId'>;

/** A client the user had a session with, and which one (null: tokens issued outside a login session). */
export interface ClientSession {
  application: ApplicationRecord;
  sessionId: string | null;
}

/** How an attempt ended: delivered, tried again at `retryAt`, or given up. */
export type DeliverySettlement =
  | { outcome: 'delivered'; at: Date }
  | { outcome: 'retry'; at: Date; retryAt: Date; error: string }
  | { outcome: 'failed'; at: Date; error: string };

/**
 * oauth_logout_deliveries, and the reads of the token table that say who gets one: only clients with a back-channel
 * logout URI, read whole on the store's own connection (in a revocation's transaction, the transaction's).
 */
export interface LogoutDeliveryStore {
  /** The clients issued tokens (revoked or not: the ID token lives on at the client) in this login session of the user. */
  clientsOfSession(resourceOwnerId: number, sessionId: string): Promise<ClientSession[]>;
  /** The (client, session) pairs of the user's unrevoked tokens: in one application, or (null) in all. */
  clientsHoldingTokens(resourceOwnerId: number, applicationId: number | null): Promise<ClientSession[]>;
  add(deliveries: readonly NewLogoutDelivery[], at: Date): Promise<void>;
  /**
   * Takes up to `limit` deliveries due at `at`, counting an attempt on each and moving its next attempt to `leaseUntil`
   * in the same statement, rows another instance is taking skipped (FOR UPDATE SKIP LOCKED): no two instances send one
   * delivery at once, and one whose instance died mid-attempt is due again after the lease.
   */
  claimDue(at: Date, leaseUntil: Date, limit: number): Promise<LogoutDeliveryRecord[]>;
  settle(id: number, settlement: DeliverySettlement): Promise<void>;
}

/** Tells the worker of this process that deliveries were queued (absent in the CLI: the service's poll finds them). */
export interface LogoutDeliveryWaker {
  wake(): void;
}
