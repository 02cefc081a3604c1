import type { UserRecord } from '../users/user-store.js';

// login_sessions (issue 35 item 5): one row per browser signed in, so that any instance can answer whether a session
// still holds, list a user's sessions and end one of them.

export interface LoginSessionRecord {
  id: number;
  /** SHA-256 (hex) of the key in the session cookie: what finds the row. */
  sessionId: string;
  /**
   * The login session's id of OpenID Connect: what tokens and logout deliveries store (each client's sid is derived
   * from it). The session_id of the browser's first sign-in as this user, kept while the same user signs in again.
   */
  openidSessionId: string;
  userId: number;
  authTime: Date;
  /** RFC 8176 authentication method references of the sign-in. */
  amr: string[];
  acr: string | null;
  ip: string | null;
  userAgent: string | null;
  createdAt: Date;
  lastSeenAt: Date;
  /** Issue 37: a sign-in through an upstream identity provider: its config id, the upstream sub, sid and ID token. */
  upstreamProviderId: string | null;
  upstreamSubject: string | null;
  upstreamSessionId: string | null;
  upstreamIdToken: string | null;
}

export type NewLoginSession = Omit<LoginSessionRecord, 'id' | 'createdAt' | 'lastSeenAt'>;

export interface LoginSessionStore {
  /** null, and no session, when the user is gone or their password hash is no longer `whilePasswordHash`. */
  create(session: NewLoginSession, at: Date, whilePasswordHash: string): Promise<LoginSessionRecord | null>;
  /** The session and its user in one read; null when the row is gone. */
  findWithUser(sessionId: string): Promise<{ session: LoginSessionRecord; user: UserRecord } | null>;
  /** Moves last_seen_at to `at` unless it is at or after `unlessSeenSince` already (other instances may have). */
  markSeen(id: number, at: Date, unlessSeenSince: Date): Promise<void>;
  /** The user's sessions last seen at or after `seenSince`, the latest sign-in first. */
  listOfUser(userId: number, seenSince: Date): Promise<LoginSessionRecord[]>;
  /** Deletes the session with this session id; what was deleted. */
  deleteBySessionId(sessionId: string): Promise<LoginSessionRecord | null>;
  /** Deletes every session of the user but `keepId`; what was deleted. */
  deleteOthersOfUser(userId: number, keepId: number): Promise<LoginSessionRecord[]>;
  /** Deletes every session of the user (disabled); what was deleted. */
  deleteAllOfUser(userId: number): Promise<LoginSessionRecord[]>;
  /**
   * Issue 37: deletes the sessions an upstream identity provider's logout names: with a sid, those of that upstream
   * session (and sub, when given); without, every session of that upstream sub. What was deleted.
   */
  /** The sessions begun through any of `providerIds` with that upstream sid and/or sub, deleted. */
  deleteOfUpstream(providerIds: string[], names: { sessionId: string | null; subject: string | null }): Promise<LoginSessionRecord[]>;
  /** Deletes the session `id` if it is the user's; what was deleted (null: none of theirs). */
  deleteOfUser(userId: number, id: number): Promise<LoginSessionRecord | null>;
}
