import { createHash } from 'node:crypto';

// The `sid` a client is told for a login session (Back-Channel Logout 1.0 section 2.4, Front-Channel Logout 1.0
// section 3: "a Session of a User Agent or device for a logged-in End-User at an RP", opaque to the RP): each client
// its own, as node-oidc-provider's session.sidFor(clientId) does, so that two relying parties that saw one sign-in
// (two sectors of pairwise clients, Core 8.1, above all) cannot link their users by it. The one rule for ID tokens
// (code, refresh) and logout tokens; what is stored (tokens, the logout-delivery queue) is the session's own id, and
// each client's sid is derived when its token is built.
//
// SHA-256 over the session id and the client_id, base64url, with no server key. Decision: no secret of this server
// fits a value that must stay the same for the life of the session on every instance: openid.pairwiseSalt may be
// unset, sessionSecret may be null (a random one per process), and KEY_ENCRYPTION_KEY changes with `keys rewrap`.
// None is needed: the session id is the SHA-256 of 256 random bits the encrypted session cookie carried at the
// session's first sign-in, kept only in this server's tables (login_sessions, oauth/sessions/login-sessions.ts), never shown to a client, so to anyone
// without it two clients' sids for one session are unrelated values, and a sid gives no way back to the session id (a
// SHA-256 preimage). A client only ever compares a sid with its own (Back-Channel Logout 2.6: the logout token's sid
// against its ID tokens'). Sessions signed in before per-client sids had their own id in every client's ID tokens;
// they ended with the move to login_sessions rows, and no new session's id is ever shown.

/** The sid `clientId` sees for the login session `sessionId`; null: a token from outside any login session, no sid. */
export function sidFor(sessionId: string | null, clientId: string): string | null {
  return sessionId === null ? null : createHash('sha256').update(`${sessionId} ${clientId}`).digest('base64url');
}
