import type { OAuthDeps } from '../deps.js';
import { InvalidGrant } from '../errors.js';
import { UsernameTaken, type UserRecord } from '../users/user-store.js';
import { UserInvalid } from '../users/user-profile.js';
import { createUserWithPasswordHash, isDisabled } from '../users/users.js';
import type { VerifiedAssertion } from './assertion-checks.js';

// Which user here an assertion's subject is. An (issuer, subject) linked before is that user. Seen for the first
// time, it finds a local user by email only where the operator said so (userMatch "email") and the issuer vouches
// for the address (email_verified true: an unverified address is anybody's claim), or becomes a new user where the
// operator allows just-in-time creation; otherwise it is nobody and the grant is refused. Found is decided without
// writing (findAssertedUser), the link or the new user is written once the grant will issue (settleAssertedUser).

export type AssertedUser = { user: UserRecord; linked: boolean } | { create: string };

export async function findAssertedUser(deps: OAuthDeps, assertion: VerifiedAssertion): Promise<AssertedUser> {
  const { entry, subject, claims } = assertion;
  const linkedId = await deps.stores.federatedSubjects.findUserId(entry.issuer, subject);
  if (linkedId !== null) return { user: usable(await deps.stores.users.findById(linkedId)), linked: true };
  if (entry.userMatch === 'email' && typeof claims.email === 'string' && claims.email_verified === true) {
    // Verified here only (users.email_verified_by null): a trusted issuer is no identityProviders entry, so an
    // address that one of those called verified is another party's word, which this issuer's operator did not trust.
    const id = await deps.stores.federatedSubjects.findUserIdByVerifiedEmail(claims.email, null);
    if (id !== null) return { user: usable(await deps.stores.users.findById(id)), linked: false };
  }
  if (entry.createUsers) return { create: `${subject}@${new URL(entry.issuer).host}` };
  throw new InvalidGrant("The assertion's subject is not a user here.");
}

/** The user, linked to the subject (created first when it is new). */
export async function settleAssertedUser(deps: OAuthDeps, assertion: VerifiedAssertion, found: AssertedUser): Promise<UserRecord> {
  const user = 'user' in found ? found.user : await createdUser(deps, found.create);
  if (!('user' in found) || !found.linked)
    await deps.stores.federatedSubjects.link(assertion.entry.issuer, assertion.subject, user.id, deps.now());
  return user;
}

function usable(user: UserRecord | null): UserRecord {
  if (!user || isDisabled(user)) throw new InvalidGrant("The assertion's subject is not a user here, or is disabled.");
  return user;
}

// No password: a random one nobody knows (createUserWithPasswordHash), so /login refuses it until an admin sets one.
async function createdUser(deps: OAuthDeps, username: string): Promise<UserRecord> {
  try {
    return await createUserWithPasswordHash(deps, username, null);
  } catch (error) {
    // The subject is not repeated: it is the issuer's to make as long and as odd as it likes (the description is the
    // client's to show), and the answer need not say which user names exist here.
    if (error instanceof UsernameTaken || error instanceof UserInvalid)
      throw new InvalidGrant("No user can be created for the assertion's subject: its user name here is taken or not valid.");
    throw error;
  }
}
