// oauth_federated_subjects seen as a user's sign-in identities (issue 37): the upstream accounts (an identityProviders
// entry, or a trusted issuer of the JWT bearer grant) that are this user here. Sign-in writes the rows
// (assertions/federated-subject-store.ts); the account page, the admin's Users page and the CLI list and remove them.

export interface UserIdentityRecord {
  issuer: string;
  /** The upstream's subject (its sub, or the claim the provider maps to it) at that issuer. */
  subject: string;
  userId: number;
  /** The identityProviders id it signs in through; null when a trusted issuer's assertion linked it. */
  providerId: string | null;
  /** The upstream's email at the last sign-in. */
  email: string | null;
  createdAt: Date;
  lastSignedInAt: Date | null;
}

/** One identity: the table's key. */
export interface IdentityKey {
  issuer: string;
  subject: string;
}

export interface UserIdentityStore {
  /** The user's identities, oldest link first. */
  listOfUser(userId: number): Promise<UserIdentityRecord[]>;
  /**
   * The same, locking the rows until the transaction ends: two removals of one user's identities at once then see
   * each other's, so a rule about the last one holds. Only inside a transaction.
   */
  lockOfUser(userId: number): Promise<UserIdentityRecord[]>;
  /** Removes the identity if it is this user's; the removed row, else null. */
  deleteOfUser(userId: number, key: IdentityKey): Promise<UserIdentityRecord | null>;
}
