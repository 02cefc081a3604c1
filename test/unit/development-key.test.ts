import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { developmentKeyEncryptionKey, existingDevelopmentKey } from '../../src/storage/development-key.js';
import { parseKeyEncryptionKey } from '../../src/storage/key-encryption.js';

// The development fallback for KEY_ENCRYPTION_KEY (issue 16): made once beside the embedded data, owner-only.
describe('development key-encryption key', () => {
  const dirs: string[] = [];
  afterEach(() => dirs.splice(0).forEach((dir) => rmSync(dir, { recursive: true, force: true })));
  const folder = () => {
    const dir = mkdtempSync(join(tmpdir(), 'oauth-dev-key-'));
    dirs.push(dir);
    return dir;
  };

  it('is made once, readable by its owner only, a valid key, and the same on every later start and for the CLI', () => {
    const dir = folder();
    expect(existingDevelopmentKey(dir)).toBeNull();
    const first = developmentKeyEncryptionKey(dir);
    expect(first.created).toBe(true);
    expect(statSync(first.path).mode & 0o777).toBe(0o600);
    expect(parseKeyEncryptionKey(first.key)).toHaveLength(32);
    expect(developmentKeyEncryptionKey(dir)).toEqual({ ...first, created: false });
    expect(existingDevelopmentKey(dir)).toBe(first.key);
  });

  it('for an in-memory database (memory://) is a fresh key in memory, written nowhere: the data dies with the process', () => {
    const key = developmentKeyEncryptionKey('memory://');
    expect(key.created).toBe(true);
    expect(parseKeyEncryptionKey(key.key)).toHaveLength(32);
    expect(existingDevelopmentKey('memory://')).toBeNull();
  });
});
