import type { UserRecord } from '../../../oauth/store.js';
import type { UserIdentity } from '../../../oauth/users/user-identities.js';
import type { IdentityKey } from '../../../oauth/users/user-identity-store.js';
import { adminTime } from '../../page-time.js';

// The view models of a user's sign-in identities on the admin's Users pages (issue 37): the list on the user's page
// and the confirmation before one is removed. An identity is named in URLs and forms by its key, issuer and subject.

const identityPath = (userId: number) => `/oauth/users/${userId}/remove_identity`;

/** The confirmation page's address for one identity: its key in the query. */
const confirmHref = (userId: number, { issuer, subject }: IdentityKey) =>
  `${identityPath(userId)}?${new URLSearchParams({ issuer, subject }).toString()}`;

export function identityRows(userId: number, identities: readonly UserIdentity[]) {
  return identities.map((identity) => ({
    provider: identity.providerName,
    issuer: identity.issuer,
    subject: identity.subject,
    email: identity.email ?? '',
    createdAt: adminTime(identity.createdAt),
    lastSignedInAt: identity.lastSignedInAt ? adminTime(identity.lastSignedInAt) : 'never',
    removeHref: confirmHref(userId, identity),
  }));
}

/** The confirmation before one identity is removed; `last`: it is the user's only one. */
export function removeIdentityView(user: UserRecord, identity: UserIdentity, last: boolean) {
  return {
    title: `Remove an identity of ${user.username}?`,
    navUsers: true,
    username: user.username,
    identity: { provider: identity.providerName, issuer: identity.issuer, subject: identity.subject, email: identity.email },
    last,
    action: identityPath(user.id),
    cancelHref: `/oauth/users/${user.id}`,
  };
}
