import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { decryptPrivateKey, encryptPrivateKey, KeyEncryptionKeyInvalid, parseKeyEncryptionKey } from '../../src/storage/key-encryption.js';

// Private signing keys at rest: AES-256-GCM under KEY_ENCRYPTION_KEY, bound to their key id (issue 16).

describe('KEY_ENCRYPTION_KEY and private keys at rest', () => {
  const key = randomBytes(32);

  it('takes 32 bytes as hex or base64 (padded or not, standard or url alphabet)', () => {
    for (const text of [key.toString('hex'), key.toString('base64'), key.toString('base64url'), key.toString('hex').toUpperCase()]) {
      expect(parseKeyEncryptionKey(text).equals(key)).toBe(true);
    }
  });

  it('refuses a missing, short or malformed key and names the variable', () => {
    for (const text of [
      undefined,
      '',
      'secret',
      randomBytes(16).toString('hex'),
      randomBytes(31).toString('base64'),
      `${key.toString('hex')}00`,
    ]) {
      expect(() => parseKeyEncryptionKey(text)).toThrow(KeyEncryptionKeyInvalid);
    }
    expect(() => parseKeyEncryptionKey('')).toThrow(/^KEY_ENCRYPTION_KEY is not set/);
  });

  it('round-trips, and never stores the plaintext', () => {
    const stored = encryptPrivateKey('{"d":"private"}', key, 'kid-1');
    expect(stored).toMatch(/^v1\.[\w-]+\.[\w-]+\.[\w-]+$/);
    expect(stored).not.toContain('private');
    expect(decryptPrivateKey(stored, key, 'kid-1')).toBe('{"d":"private"}');
    expect(encryptPrivateKey('{"d":"private"}', key, 'kid-1')).not.toBe(stored);
  });

  it('fails with another key, another key id or a changed byte', () => {
    const stored = encryptPrivateKey('{"d":"private"}', key, 'kid-1');
    expect(() => decryptPrivateKey(stored, randomBytes(32), 'kid-1')).toThrow(/does not decrypt/);
    expect(() => decryptPrivateKey(stored, key, 'kid-2')).toThrow(/does not decrypt/);
    const parts = stored.split('.');
    parts[2] = `${parts[2]!.slice(0, -2)}${parts[2]!.endsWith('AA') ? 'BA' : 'AA'}`;
    expect(() => decryptPrivateKey(parts.join('.'), key, 'kid-1')).toThrow(/does not decrypt/);
    expect(() => decryptPrivateKey('plain text', key, 'kid-1')).toThrow(/format/);
  });
});
