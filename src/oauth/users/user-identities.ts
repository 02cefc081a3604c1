import { auditedChange, type AuditActor } from '../audit/audit-trail.js';
import { identityRemovedEvent } from '../audit/identity-events.js';
import type { OAuthDeps } from '../deps.js';
import { hasPasskeys } from '../passkeys/passkeys.js';
import type { IdentityKey, UserIdentityRecord } from './user-identity-store.js';

// A user's sign-in identities (issue 37): the upstream accounts linked to them, each named by its provider's display
// name. A user may have several; the user removes one on the account page, the admin on the Users page or with the
// CLI. Removing one only unlinks it: the next sign-in through it links it again as a sign-in would the first time
// (createUsers, linkByVerifiedEmail).

interface NamedProvider {
  id: string;
  name: string;
}

/** What naming an identity needs of the config: its providers' ids and names. */
interface ProviderNames {
  identityProviders: readonly NamedProvider[];
}

export interface UserIdentity extends UserIdentityRecord {
  /** The provider's name in config, else the issuer (a trusted issuer's link, or a provider no longer configured). */
  providerName: string;
}

function withProviderName(config: ProviderNames, identity: UserIdentityRecord): UserIdentity {
  const provider = identity.providerId === null ? undefined : config.identityProviders.find(({ id }) => id === identity.providerId);
  return { ...identity, providerName: provider?.name ?? identity.issuer };
}

/** Whether removing the user's identities needs their password: one left, and no passkey (removeUserIdentity). */
export async function removalNeedsPassword(
  deps: Pick<OAuthDeps, 'stores'>,
  identities: readonly unknown[],
  userId: number,
): Promise<boolean> {
  return identities.length === 1 && !(await hasPasskeys(deps, userId));
}

export async function identitiesOfUser(
  deps: Pick<OAuthDeps, 'stores'> & { config: ProviderNames },
  userId: number,
): Promise<UserIdentity[]> {
  return (await deps.stores.userIdentities.listOfUser(userId)).map((identity) => withProviderName(deps.config, identity));
}

export type IdentityRemoval =
  | { outcome: 'removed'; identity: UserIdentity }
  | { outcome: 'not_found' }
  /** Refused: the user's only identity, they have no passkey, and they did not confirm a password of theirs. */
  | { outcome: 'last_sign_in' };

const sameKey = (key: IdentityKey) => (identity: IdentityKey) => identity.issuer === key.issuer && identity.subject === key.subject;

/**
 * Removes one of the user's identities and records `user.identity.removed` by `by`, in one transaction. With
 * `keepSignIn` (the user's own removal) the only identity of a user with no passkey stays unless `passwordConfirmed`
 * (the user typed their password, so it signs them in afterwards): a user made at their first upstream sign-in has no
 * password they know, so removing it would lock them out. The admin may remove it (and then sets a password). The rows
 * are locked first, so two removals at once cannot both pass that rule.
 */
export function removeUserIdentity(
  deps: OAuthDeps,
  by: AuditActor,
  userId: number,
  key: IdentityKey,
  { keepSignIn, passwordConfirmed = false }: { keepSignIn: boolean; passwordConfirmed?: boolean },
): Promise<IdentityRemoval> {
  const remove = async (tx: OAuthDeps): Promise<IdentityRemoval> => {
    const identities = await tx.stores.userIdentities.lockOfUser(userId);
    if (!identities.some(sameKey(key))) return { outcome: 'not_found' };
    if (keepSignIn && !passwordConfirmed && (await removalNeedsPassword(tx, identities, userId))) return { outcome: 'last_sign_in' };
    const removed = await tx.stores.userIdentities.deleteOfUser(userId, key);
    return removed === null ? { outcome: 'not_found' } : { outcome: 'removed', identity: withProviderName(deps.config, removed) };
  };
  const event = (removal: IdentityRemoval) => (removal.outcome === 'removed' ? identityRemovedEvent(userId, removal.identity) : null);
  return auditedChange(deps, by, remove, event);
}
