import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jwksKids } from '../helpers/openid.js';
import { runService, serviceFixture, startService, stopService, type ServiceFixture } from '../helpers/processes.js';
import { backend } from '../helpers/test-database.js';

// The real executable at boot (issue 31 item 6): a server whose signing keys were stored under another
// KEY_ENCRYPTION_KEY stops at boot, naming the keys and `keys rewrap`, instead of answering every code exchange with
// 500. A file of its own: its two boots and two commands made boot-openid.test.ts the one file over 60 s (docs/testing.md).

describe(`oauth-service serve: signing keys that do not decrypt stop the boot (issue 31 item 6, ${backend})`, () => {
  let fixture: ServiceFixture;
  beforeAll(async () => {
    fixture = await serviceFixture('oauth-boot-keys-');
  });
  afterAll(() => fixture.dispose());

  it('a new KEY_ENCRYPTION_KEY is refused at boot, naming the kid and keys rewrap; after keys rewrap the same keys sign', async () => {
    // The operator's path of the issue: on the embedded database the quick start's development key, then a real one;
    // on PostgreSQL one real key, then another.
    const dataDir = fixture.env.DATA_DIR!;
    const old = randomBytes(32).toString('hex');
    const first =
      backend === 'pglite' ? fixture.env : { ...fixture.env, KEY_ENCRYPTION_KEY: old, OAUTH_CONFIG: join(dataDir, 'openid.json') };
    if (backend !== 'pglite') writeFileSync(join(dataDir, 'openid.json'), JSON.stringify({ openid: { enabled: true } }));
    const before = await startService(first);
    const kids = await jwksKids(before.baseUrl);
    expect(await stopService(before.child)).toBe(0);

    const renewed = { ...first, KEY_ENCRYPTION_KEY: randomBytes(32).toString('hex') };
    const refused = await runService(['serve'], renewed);
    expect(refused.code).toBe(1);
    // Every key that signs or will sign is named (here the one RS256 key the first boot made).
    expect(kids).toHaveLength(1);
    expect(refused.stderr).toContain(`oauth-service: the signing key ${kids[0]} does not decrypt with this KEY_ENCRYPTION_KEY`);
    // The development key of the data folder it ran on (DATA_DIR), not ./data's: the command runs as printed.
    expect(refused.stderr).toContain(
      `oauth-service keys rewrap --from-key-file ${join(dataDir, 'key-encryption-key')} (or --from-env OLD_KEY`,
    );

    const rewrap =
      backend === 'pglite'
        ? await runService(['keys', 'rewrap', '--from-key-file', join(dataDir, 'key-encryption-key')], renewed)
        : await runService(['keys', 'rewrap', '--from-env', 'OLD_KEY'], { ...renewed, OLD_KEY: old });
    expect(rewrap.code, rewrap.stderr).toBe(0);

    const after = await startService(renewed);
    try {
      expect(await jwksKids(after.baseUrl)).toEqual(kids);
    } finally {
      expect(await stopService(after.child)).toBe(0);
    }
  }, 180_000);
});
