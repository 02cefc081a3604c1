// webauthn_credentials (issue 35 item 1): the passkeys users registered, several per user. The WebAuthn ceremonies
// themselves (challenges, signatures, attestation) are checked in src/http/passkeys/ with @simplewebauthn/server;
// what a verified ceremony may change is decided here (passkeys.ts).

export interface PasskeyRecord {
  id: number;
  /** The credential id, base64url, as the authenticator returns it. */
  credentialId: string;
  userId: number;
  /** The COSE public key, base64url. */
  publicKey: string;
  /** The last signature counter seen; 0: the authenticator keeps none. */
  signCount: number;
  transports: string[];
  backupEligible: boolean;
  backedUp: boolean;
  /** WebAuthn's credential device type: singleDevice (device-bound) or multiDevice (synced). */
  deviceType: string;
  aaguid: string | null;
  name: string;
  createdAt: Date;
  lastUsedAt: Date | null;
}

export type NewPasskey = Omit<PasskeyRecord, 'id' | 'createdAt' | 'lastUsedAt'>;

export interface PasskeyStore {
  /** The new row; null when the credential id is registered already (to anyone). */
  create(passkey: NewPasskey, at: Date): Promise<PasskeyRecord | null>;
  findByCredentialId(credentialId: string): Promise<PasskeyRecord | null>;
  /** The user's passkeys, oldest first. */
  listOfUser(userId: number): Promise<PasskeyRecord[]>;
  /** Renames the passkey `id` if it is the user's; false when it is not. */
  rename(userId: number, id: number, name: string): Promise<boolean>;
  /** Deletes the passkey `id` if it is the user's; what was deleted (null: none of theirs). */
  deleteOfUser(userId: number, id: number): Promise<PasskeyRecord | null>;
  /** Deletes all the user's passkeys (an admin's reset); what was deleted. */
  deleteAllOfUser(userId: number): Promise<PasskeyRecord[]>;
  /**
   * Records a use: the new counter, backup state and time, only while the stored counter is still `expectedCount`
   * (another instance may have recorded a use of the same credential meanwhile); false when it was not.
   */
  recordUse(id: number, expectedCount: number, use: { signCount: number; backedUp: boolean }, at: Date): Promise<boolean>;
}
