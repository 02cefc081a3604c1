import type { IdentityProviderConfig } from '../../config/identity-providers-schema.js';
import type { UpstreamIdentity } from '../assertions/federated-subject-store.js';
import type { OAuthDeps } from '../deps.js';
import { UsernameTaken, type UserRecord } from '../users/user-store.js';
import { createUserWithPasswordHash, isDisabled, updateUserProfile, usernameErrors } from '../users/users.js';
import { findUserNamed } from '../users/usernames.js';
import { verifiedEmail, type MappedClaims } from './upstream-claims.js';
import { UpstreamFailure } from './upstream-failure.js';
import { upstreamProfile } from './upstream-profile.js';
import type { UpstreamSignedIn } from './upstream-sign-in.js';

// Which local user an upstream identity (issuer + upstream sub, a row of oauth_federated_subjects) is (issue 37 item
// 3). Linked before: that user, their claims refreshed. Seen for the first time: the local user with the same verified
// email where the provider says linkByVerifiedEmail (both sides must vouch for the address: verified here, or by this
// same provider, never on another upstream's word); else, when a local user has that email (the upstream vouching for
// it: an unverified one is anybody's claim, and would tell who has an account here) or that user name, nobody is
// linked on the upstream's word: that user proves the local account first (proveLocalAccount); else a new user, just
// in time, where createUsers allows. A disabled user is refused either way.

/**
 * `signed_in`, with what was written for it (`created`: a new user; `linked`: linked by verified email), for the audit
 * trail; `prove`: the local accounts it could be (one, or several holding its email), the first one shown.
 */
export type UpstreamUser =
  | { outcome: 'signed_in'; user: UserRecord; created?: boolean; linked?: 'verified_email' }
  | { outcome: 'prove'; userId: number; userIds: number[] };

export const upstreamIdentityOf = (entry: IdentityProviderConfig, signedIn: UpstreamSignedIn): UpstreamIdentity => ({
  issuer: signedIn.issuer,
  subject: signedIn.claims.sub,
  providerId: entry.id,
  email: typeof signedIn.claims.email === 'string' ? signedIn.claims.email : null,
  claims: signedIn.claims,
});

export async function resolveUpstreamUser(
  deps: OAuthDeps,
  entry: IdentityProviderConfig,
  signedIn: UpstreamSignedIn,
): Promise<UpstreamUser> {
  const identity = upstreamIdentityOf(entry, signedIn);
  const { federatedSubjects, users } = deps.stores;
  const linkedId = await federatedSubjects.findUserId(identity.issuer, identity.subject);
  if (linkedId !== null) {
    const user = enabled(await users.findById(linkedId));
    await federatedSubjects.touchUpstream(identity, deps.now());
    return { outcome: 'signed_in', user: await refreshed(deps, user, identity) };
  }
  const email = verifiedEmail(signedIn.claims);
  if (email !== null && entry.linkByVerifiedEmail) {
    // Account pre-hijacking: an address another provider called verified (a user it made, or claims it refreshed) is
    // that provider's word only, which this one's operator did not choose to trust.
    const id = await federatedSubjects.findUserIdByVerifiedEmail(email, identity.providerId);
    if (id !== null) {
      const user = await linkUpstreamIdentity(deps, identity, enabled(await users.findById(id)));
      return { outcome: 'signed_in', user, linked: 'verified_email' };
    }
  }
  // Several holders of the address (verified or not): none is linked on the upstream's word, nor is another made.
  const existing = await sameLocalUsers(deps, signedIn.claims);
  if (existing.length > 0) {
    const userIds = existing.filter((user) => !isDisabled(user)).map((user) => user.id);
    if (userIds.length === 0) throw new UpstreamFailure('user_disabled', 'the local user is disabled (or gone)');
    return { outcome: 'prove', userId: userIds[0]!, userIds };
  }
  if (!entry.createUsers) throw new UpstreamFailure('no_user', 'no local user, and createUsers is off');
  return { outcome: 'signed_in', user: await createUpstreamUser(deps, entry, identity), created: true };
}

/** Links the identity to `user` (after a proof, or by verified email); its claims refresh the user's. */
export async function linkUpstreamIdentity(deps: OAuthDeps, identity: UpstreamIdentity, user: UserRecord): Promise<UserRecord> {
  enabled(user);
  if (!(await deps.stores.federatedSubjects.linkUpstream(identity, user.id, deps.now()))) {
    // Linked meanwhile (another tab, another instance): the first link stays, and is who signs in.
    const linkedId = await deps.stores.federatedSubjects.findUserId(identity.issuer, identity.subject);
    return enabled(linkedId === null ? null : await deps.stores.users.findById(linkedId));
  }
  return refreshed(deps, user, identity);
}

/** A new user for the identity, named after its username claim (else its email's local part), -2, -3... when taken. */
export async function createUpstreamUser(deps: OAuthDeps, entry: IdentityProviderConfig, identity: UpstreamIdentity): Promise<UserRecord> {
  const claims = identity.claims as MappedClaims;
  const base = usernameBase(entry, claims);
  for (let attempt = 1; attempt <= MAX_SUFFIX; attempt++) {
    const username = attempt === 1 ? base : `${base}-${attempt}`;
    if ((await findUserNamed(deps.stores.users, username)) !== null) continue;
    try {
      const user = await createUserWithPasswordHash(deps, username, null, upstreamProfile(claims), identity.providerId);
      return await linkUpstreamIdentity(deps, identity, user);
    } catch (error) {
      if (!(error instanceof UsernameTaken)) throw error;
    }
  }
  throw new UpstreamFailure('no_user', `no free user name from ${base} to ${base}-${MAX_SUFFIX}`);
}

const MAX_SUFFIX = 50;

function usernameBase(entry: IdentityProviderConfig, claims: MappedClaims): string {
  const candidates = [claims.username, claims.email?.slice(0, claims.email.indexOf('@'))];
  const usable = candidates.find(
    (name): name is string => typeof name === 'string' && usernameErrors(name).length === 0 && name.length <= 200,
  );
  return usable ?? `${entry.id}-${claims.sub}`.slice(0, 200);
}

// The most holders of one email whose accounts the proof step accepts.
const MAX_HOLDERS = 100;

/**
 * The local users an upstream identity could be but must prove to be one of: those with its email (in any case) when
 * the upstream says it is verified, else the one with its user name; [] for none. An unverified email matches nobody:
 * whoever can type an address at some upstream would otherwise learn from the link page who has an account here.
 */
async function sameLocalUsers(deps: OAuthDeps, claims: MappedClaims): Promise<UserRecord[]> {
  const email = verifiedEmail(claims);
  if (email !== null) {
    const ids = await deps.stores.federatedSubjects.findUserIdsByEmail(email, MAX_HOLDERS);
    const holders = await Promise.all(ids.map((id) => deps.stores.users.findById(id)));
    if (ids.length > 0) return holders.filter((user): user is UserRecord => user !== null);
  }
  const named = typeof claims.username === 'string' ? await findUserNamed(deps.stores.users, claims.username) : null;
  return named === null ? [] : [named];
}

// The upstream's claims over the user's, on its word: an email or email_verified it changes is verified by it.
async function refreshed(deps: OAuthDeps, user: UserRecord, identity: UpstreamIdentity): Promise<UserRecord> {
  const profile = upstreamProfile(identity.claims as MappedClaims);
  return (await updateUserProfile(deps, user, profile, identity.providerId)) ?? user;
}

function enabled(user: UserRecord | null): UserRecord {
  if (user === null || isDisabled(user)) throw new UpstreamFailure('user_disabled', 'the local user is disabled (or gone)');
  return user;
}
