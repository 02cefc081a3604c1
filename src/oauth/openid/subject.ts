import { createHmac } from 'node:crypto';
import type { Config } from '../../config/types.js';
import type { OAuthDeps } from '../deps.js';
import { ServerError } from '../errors.js';
import type { ApplicationRecord, SubjectType, UserRecord } from '../store.js';

// The `sub` a client is told for a user (OpenID Connect Core 1.0 section 8): the one rule that ID tokens, UserInfo,
// JWT access tokens, introspection and logout tokens follow, and that id_token_hint is checked against. A public
// client sees the user's own subject (users.subject: random, stable, never the user name). A pairwise client
// (section 8.1) sees one derived from its sector, so that clients of different sectors cannot correlate a user by
// sub, while every client of one sector sees the same: HMAC-SHA-256 keyed with openid.pairwiseSalt over the sector
// host and the user's subject, base64url. The key keeps it irreversible by anyone but this server (section 8.1: "MUST
// NOT be reversible by any party other than the OpenID Provider"), and every instance with the same salt agrees.

export const SUBJECT_TYPES: readonly SubjectType[] = ['public', 'pairwise'];

export const isSubjectType = (value: string): value is SubjectType => (SUBJECT_TYPES as readonly string[]).includes(value);

/** What of a client decides the sub it sees. */
export type SubjectClient = Pick<ApplicationRecord, 'subjectType' | 'sectorIdentifierUri' | 'redirectUris'>;

type SubjectConfig = { openid: Pick<Config['openid'], 'pairwiseSalt'> };

/** Whether clients may be pairwise: OpenID Connect is on and the salt the pairwise subjects are derived from is set. */
export const pairwiseAvailable = (config: { openid: Pick<Config['openid'], 'enabled' | 'pairwiseSalt'> }): boolean =>
  config.openid.enabled && config.openid.pairwiseSalt !== null;

/**
 * Core 8.1: the sector of a pairwise client, the host of its sector_identifier_uri when it registered one, else the
 * host of its redirect URIs, which must then be one host (a client whose redirect URIs name several hosts, or none,
 * has no sector without a sector_identifier_uri: null).
 */
export function sectorOf(client: Pick<SubjectClient, 'sectorIdentifierUri' | 'redirectUris'>): string | null {
  if (client.sectorIdentifierUri !== null) return hostOf(client.sectorIdentifierUri);
  const hosts = new Set(client.redirectUris.map(hostOf));
  const [host] = hosts;
  return hosts.size === 1 && host !== undefined ? host : null;
}

function hostOf(uri: string): string | null {
  try {
    // An out-of-band or private-use-scheme URI has no host: it names no sector.
    return new URL(uri).hostname.toLowerCase() || null;
  } catch {
    return null;
  }
}

/** The sub `client` sees for `user`; null `client`: no client, the public subject. */
export function subjectFor(user: Pick<UserRecord, 'subject'>, client: SubjectClient | null, config: SubjectConfig): string {
  if (client === null || client.subjectType === 'public') return user.subject;
  const salt = config.openid.pairwiseSalt;
  const sector = sectorOf(client);
  // Never the public subject instead: that is exactly what a pairwise client must not learn. The admin form, the CLI
  // and registration refuse a pairwise client without a salt or a sector; only a salt removed since, or a row
  // edited by hand, gets here.
  if (salt === null || sector === null) {
    const missing = salt === null ? 'openid.pairwiseSalt (PAIRWISE_SALT) is not set' : 'it has no sector (one redirect URI host)';
    throw new ServerError({ cause: new Error(`a pairwise client's subject cannot be computed: ${missing}`) });
  }
  return createHmac('sha256', salt).update(`${sector} ${user.subject}`).digest('base64url');
}

/**
 * The sub `client` sees for the resource owner of a token; null when the user no longer exists. Introspection of a
 * user's token and a JWT access token need it on every request, so the user's own subject is read once per store.
 */
export async function resourceOwnerSubject(
  deps: Pick<OAuthDeps, 'stores' | 'config'>,
  resourceOwnerId: number,
  client: SubjectClient | null,
): Promise<string | null> {
  const subject = await userSubject(deps.stores.users, resourceOwnerId);
  return subject === null ? null : subjectFor({ subject }, client, deps.config);
}

// users.subject is set when the user is made and never changed, and user ids are never reused, so the pairs read are
// kept (per store: each server and test its own), a bounded number, the oldest dropped first. A deleted or disabled
// user's tokens were revoked with it, so a kept subject is never answered for a token that should not be active.
const SUBJECTS_KEPT = 10_000;
const keptSubjects = new WeakMap<object, Map<number, string>>();

async function userSubject(users: OAuthDeps['stores']['users'], id: number): Promise<string | null> {
  let kept = keptSubjects.get(users);
  if (kept === undefined) keptSubjects.set(users, (kept = new Map()));
  const known = kept.get(id);
  if (known !== undefined) return known;
  const user = await users.findById(id);
  if (user === null) return null;
  if (kept.size >= SUBJECTS_KEPT) kept.delete(kept.keys().next().value!);
  kept.set(id, user.subject);
  return user.subject;
}
