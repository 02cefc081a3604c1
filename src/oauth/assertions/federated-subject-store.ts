// oauth_federated_subjects (issue 34 item 3): which user here a trusted issuer's subject is.

export interface FederatedSubjectStore {
  /** The user linked to this issuer's subject, or null. */
  findUserId(issuer: string, subject: string): Promise<number | null>;
  /** Links the subject to the user; false when it was linked already (to whichever user: the first link stays). */
  link(issuer: string, subject: string, userId: number, at: Date): Promise<boolean>;
  /** The one local user with this email verified (in any case), or null: none, or several (which one is unknowable). */
  findUserIdByVerifiedEmail(email: string): Promise<number | null>;
}
