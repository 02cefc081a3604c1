import { compactVerify, createLocalJWKSet, errors } from 'jose';
import { authorizationIssuer } from '../issuer.js';
import type { OAuthDeps } from '../deps.js';
import { publishedJwks } from '../keys/signing-key-service.js';
import { SIGNING_ALGORITHMS } from '../keys/signing-keys.js';
import type { UserRecord } from '../store.js';
import { notAnIdToken } from './id-token-shape.js';
import { subjectFor } from './subject.js';

// An ID token this server issued, presented back to it: id_token_hint at the authorization endpoint (Core
// 3.1.2.1) and at end_session (RP-Initiated Logout 1.0 section 2). Its signature must verify against a key
// published now (a retired key's tokens do not), and iss must be this server; an expired one is still a good
// hint, as Logout 1.0 section 4 asks, but another JWT of this server (a logout token, a signed UserInfo answer) is
// none (id-token-shape.ts). alg "none" and unknown kids never verify (jose refuses them).

export interface IdTokenHint {
  subject: string;
  /** The client the ID token was issued to (aud, or azp when aud lists several). */
  clientId: string;
  sessionId: string | null;
}

export async function verifyIdTokenHint(deps: Pick<OAuthDeps, 'stores' | 'config' | 'now'>, token: string): Promise<IdTokenHint | null> {
  const keys = createLocalJWKSet((await publishedJwks(deps)) as Parameters<typeof createLocalJWKSet>[0]);
  let payload: Record<string, unknown>;
  try {
    const verified = await compactVerify(token, keys, { algorithms: [...SIGNING_ALGORITHMS] });
    const parsed: unknown = JSON.parse(new TextDecoder().decode(verified.payload));
    if (typeof parsed !== 'object' || parsed === null) return null;
    payload = parsed as Record<string, unknown>;
    if (notAnIdToken(verified.protectedHeader, payload) !== null) return null;
  } catch (error) {
    if (error instanceof errors.JOSEError || error instanceof SyntaxError) return null;
    throw error;
  }
  if (payload.iss !== authorizationIssuer(deps.config.baseUrl) || typeof payload.sub !== 'string') return null;
  const clientId = typeof payload.azp === 'string' ? payload.azp : typeof payload.aud === 'string' ? payload.aud : null;
  if (clientId === null) return null;
  return { subject: payload.sub, clientId, sessionId: typeof payload.sid === 'string' ? payload.sid : null };
}

/**
 * Whether the hint names `user`: its sub is the one its client sees for them (Core 8.1: a pairwise client was given
 * its sector's, not the user's own subject). A client deleted since is compared with the public subject.
 */
export async function hintNames(
  deps: Pick<OAuthDeps, 'stores' | 'config'>,
  hint: IdTokenHint,
  user: Pick<UserRecord, 'subject'>,
): Promise<boolean> {
  const client = await deps.stores.applications.findByUid(hint.clientId);
  return hint.subject === subjectFor(user, client, deps.config);
}
