// The second factors of users (issue 35 item 2): a confirmed TOTP authenticator per user and its single-use recovery
// codes. src/storage/second-factor-repository.ts implements it.

export interface TotpFactorRecord {
  userId: number;
  /** The base32 secret (stored encrypted under KEY_ENCRYPTION_KEY when one is set: storage/second-factor-repository.ts). */
  secret: string;
  /** RFC 6238 time step of the last accepted code; null before the first. */
  lastUsedStep: number | null;
  createdAt: Date;
}

export interface RecoveryCodeRecord {
  id: number;
  /** SHA-256 (hex) of the code. */
  codeHash: string;
}

export interface SecondFactorStore {
  findTotp(userId: number): Promise<TotpFactorRecord | null>;
  /** Whether the user has an authenticator (without reading, so without decrypting, its secret). */
  hasTotp(userId: number): Promise<boolean>;
  /** Stores (or replaces) the user's authenticator and replaces their recovery codes, in one statement. */
  saveTotp(userId: number, secret: string, recoveryCodeHashes: readonly string[], at: Date): Promise<void>;
  /**
   * Records `step` as used unless a code of it or a later step was accepted before (on any instance: one atomic
   * UPDATE). False: the code is a replay.
   */
  useStep(userId: number, step: number): Promise<boolean>;
  /** The user's recovery codes not used yet. */
  unusedRecoveryCodes(userId: number): Promise<RecoveryCodeRecord[]>;
  /** Marks the code used unless it was already (atomic). False: it was. */
  useRecoveryCode(id: number, at: Date): Promise<boolean>;
  /** Replaces every recovery code of the user. */
  replaceRecoveryCodes(userId: number, codeHashes: readonly string[], at: Date): Promise<void>;
  /** Removes the authenticator and the recovery codes; false when the user had none. */
  remove(userId: number): Promise<boolean>;
  /** Sets users.mfa; false when there is no such user. */
  setPolicy(userId: number, policy: string): Promise<boolean>;
}
