import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { PrivateKeyUndecryptable } from '../oauth/keys/signing-key-check.js';

// Private signing keys are stored encrypted (AES-256-GCM) under a key-encryption key that is not in the
// database (env KEY_ENCRYPTION_KEY): a copy of the database alone cannot sign. The key id is the associated data,
// so a ciphertext moved to another row does not decrypt.

const FORMAT = 'v1';
const IV_BYTES = 12;

/** KEY_ENCRYPTION_KEY was missing or not 32 bytes; the message names the variable and what it must hold. */
export class KeyEncryptionKeyInvalid extends Error {
  constructor(detail: string) {
    super(`KEY_ENCRYPTION_KEY ${detail}: it must be 32 random bytes, as 64 hex characters or base64 (openssl rand -hex 32)`);
    this.name = 'KeyEncryptionKeyInvalid';
  }
}

/** The 32-byte key of KEY_ENCRYPTION_KEY, given as hex (64 characters) or base64/base64url (43 or 44). */
export function parseKeyEncryptionKey(text: string | undefined): Buffer {
  const value = text?.trim() ?? '';
  if (value === '') throw new KeyEncryptionKeyInvalid('is not set');
  const key = /^[0-9a-fA-F]{64}$/.test(value)
    ? Buffer.from(value, 'hex')
    : /^[A-Za-z0-9+/_-]{43}=?$/.test(value)
      ? Buffer.from(value.replace(/=$/, ''), 'base64url')
      : null;
  if (key === null || key.length !== 32) throw new KeyEncryptionKeyInvalid('is not 32 bytes in hex or base64');
  return key;
}

/** `v1.<iv>.<ciphertext>.<tag>`, each part base64url. */
export function encryptPrivateKey(plaintext: string, key: Buffer, keyId: string): string {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(keyId, 'utf8'));
  const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return [FORMAT, iv, ciphertext, cipher.getAuthTag()]
    .map((part) => (typeof part === 'string' ? part : part.toString('base64url')))
    .join('.');
}

/**
 * The plaintext, or an error when the key, the key id or the stored text is wrong (GCM authenticates all three):
 * PrivateKeyUndecryptable when it is the key (or the key id).
 */
export function decryptPrivateKey(stored: string, key: Buffer, keyId: string): string {
  const [format, iv, ciphertext, tag] = stored.split('.');
  if (format !== FORMAT || iv === undefined || ciphertext === undefined || tag === undefined) {
    throw new Error(`the private key of ${keyId} is not in the ${FORMAT} format`);
  }
  const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
  decipher.setAAD(Buffer.from(keyId, 'utf8'));
  decipher.setAuthTag(Buffer.from(tag, 'base64url'));
  try {
    return Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64url')), decipher.final()]).toString('utf8');
  } catch {
    throw new PrivateKeyUndecryptable(keyId);
  }
}
