// The end users (resource owners) as the domain sees them, and the storage interfaces for them: the reads of
// sign-in and UserInfo, and the admin's CRUD. src/storage/user-repository.ts implements them.

export interface UserRecord extends UserClaims {
  id: number;
  username: string;
  passwordHash: string;
  createdAt: Date;
  updatedAt: Date;
  /** The OpenID Connect `sub`: random and stable, never the user name. */
  subject: string;
  /** Set while the user is disabled (no login; their tokens were revoked when it was set). */
  disabledAt: Date | null;
  /** When a claim last changed: the updated_at claim. */
  profileUpdatedAt: Date;
  /** The user's second-factor policy: off, optional or required (oauth/second-factor/second-factor-policy.ts). */
  mfa: string;
}

/** The standard claims a user may have (OpenID Connect Core 5.1); address is its JSON object as text. */
export interface UserClaims {
  name: string | null;
  givenName: string | null;
  familyName: string | null;
  middleName: string | null;
  nickname: string | null;
  preferredUsername: string | null;
  profile: string | null;
  picture: string | null;
  website: string | null;
  email: string | null;
  emailVerified: boolean;
  gender: string | null;
  birthdate: string | null;
  zoneinfo: string | null;
  locale: string | null;
  phoneNumber: string | null;
  phoneNumberVerified: boolean;
  address: string | null;
}

export interface UserStore {
  findByUsername(username: string): Promise<UserRecord | null>;
  findById(id: number): Promise<UserRecord | null>;
  /** By the OpenID Connect subject (users.subject), as a public client sees it. */
  findBySubject(subject: string): Promise<UserRecord | null>;
}

/** Whose word a user's emailVerified is (users.email_verified_by), written beside the claims; read only by SQL. */
export interface EmailSource {
  /**
   * The identityProviders id whose sign-in last wrote the email or emailVerified; null when they were written here
   * (admin, CLI, apply). Linking by verified email counts only the address verified here or by the provider linking.
   */
  emailVerifiedBy: string | null;
}

export interface UserAdminStore {
  list(): Promise<UserRecord[]>;
  /** Users whose username, name or email contains `text` in any case ('' matches all), by username; at most `limit`. */
  search(query: { text: string; limit: number }): Promise<UserRecord[]>;
  /** Throws UsernameTaken when the username exists. emailVerifiedBy left out: null (written here). */
  create(input: { username: string; passwordHash: string } & Partial<UserClaims & EmailSource>): Promise<UserRecord>;
  /**
   * Sets these claims and profile_updated_at (the updated_at claim); null when there is no such user. emailVerifiedBy
   * left out stays as it is (users.ts writes it with every change of email or emailVerified).
   */
  updateClaims(id: number, claims: Partial<UserClaims & EmailSource>, profileUpdatedAt: Date): Promise<UserRecord | null>;
  /** Sets or (null) clears disabled_at; null when there is no such user. */
  setDisabledAt(id: number, at: Date | null): Promise<UserRecord | null>;
  /** false when no user matched: none of that name, or (with `only`) one whose hash is no longer `only.passwordHash`. */
  setPasswordHash(username: string, passwordHash: string, only?: { passwordHash: string }): Promise<boolean>;
  delete(username: string): Promise<boolean>;
}

export class UsernameTaken extends Error {
  constructor(readonly username: string) {
    super(`a user named ${username} already exists`);
  }
}
