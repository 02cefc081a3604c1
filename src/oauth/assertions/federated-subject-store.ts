// oauth_federated_subjects (issue 34 item 3): which user here a trusted issuer's subject is; since issue 37 also the
// identities users sign in with at upstream identity providers (provider_id set), with what the upstream last said.

/** An upstream identity as a sign-in through identityProviders writes it. */
export interface UpstreamIdentity {
  issuer: string;
  subject: string;
  providerId: string;
  email: string | null;
  /** The mapped claims of the last sign-in (our claim names). */
  claims: Record<string, unknown>;
}

export interface FederatedSubjectStore {
  /** The user linked to this issuer's subject, or null. */
  findUserId(issuer: string, subject: string): Promise<number | null>;
  /** Links the subject to the user; false when it was linked already (to whichever user: the first link stays). */
  link(issuer: string, subject: string, userId: number, at: Date): Promise<boolean>;
  /**
   * The one local user with this email (in any case) verified here or by identity provider `verifiedBy` (a user's
   * emailVerifiedBy null, or that id; null: verified here only), or null: none, or several (which one is unknowable).
   */
  findUserIdByVerifiedEmail(email: string, verifiedBy: string | null): Promise<number | null>;
  /** The local users with this email (verified or not, in any case), the oldest first, at most `limit`. */
  findUserIdsByEmail(email: string, limit: number): Promise<number[]>;
  /** Links an upstream identity to the user (signed in through it at `at`); false when it was linked already. */
  linkUpstream(identity: UpstreamIdentity, userId: number, at: Date): Promise<boolean>;
  /** Records a sign-in through a linked upstream identity: what it said (email, claims) and when. */
  touchUpstream(identity: UpstreamIdentity, at: Date): Promise<void>;
}
