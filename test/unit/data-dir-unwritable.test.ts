import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { lockDataDir } from '../../src/storage/data-dir-lock.js';

// A data folder the service cannot write to is said as such, naming the folder and the way out, not as a bare
// "EACCES: permission denied, open '.../oauth-service.lock'" (a data lifecycle audit). Linux's sysfs refuses to create
// any file, even to root, which a test running as root needs (a folder's mode would not stop it).
describe.skipIf(process.platform !== 'linux' || !existsSync('/sys/kernel'))('a data folder that cannot be written', () => {
  it('is refused naming the folder and what to do', async () => {
    await expect(lockDataDir('/sys/kernel', 'cli', async () => false)).rejects.toThrow(
      'cannot write to the data folder /sys/kernel: permission denied (give the user this service runs as write access to it, or set DATA_DIR to a folder it owns)',
    );
  });
});
