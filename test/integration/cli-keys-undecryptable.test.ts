import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SigningKeysUndecryptable } from '../../src/oauth/keys/signing-key-check.js';
import { createCliHarness, type CliHarness } from '../helpers/cli.js';
import { backend } from '../helpers/test-database.js';

// keys rotate and keys retire make keys (retire: the successor of the last key of an algorithm). Made under another
// key-encryption key than the stored ones (the development key the CLI falls back to on the embedded database, or
// a mistyped KEY_ENCRYPTION_KEY), the new key would sign nothing on a server that decrypts the others: every code
// exchange a 500 (issue 31 item 6). Both refuse as the boot does, naming the keys and `keys rewrap`.

const STORED_UNDER = randomBytes(32).toString('hex');

interface ListedKey {
  kid: string;
  state: string;
}

describe(
  `oauth-service keys rotate|retire under another KEY_ENCRYPTION_KEY than the stored keys' (${backend})`,
  { timeout: 120_000 },
  () => {
    let cli: CliHarness;
    let before: ListedKey[];
    const listed = async () => JSON.parse((await cli.run(['keys', 'list', '--json'])).stdout) as ListedKey[];
    /** The refusal: exit code 1, the boot's message naming the keys that sign, and no key made or retired. */
    const expectRefused = async (argv: string[]) => {
      const result = await cli.run(argv);
      expect(result.code, result.stdout).toBe(1);
      const developmentKey = join(cli.env.DATA_DIR!, 'key-encryption-key');
      expect(result.stderr).toBe(
        `oauth-service: ${
          new SigningKeysUndecryptable(
            before.map((key) => key.kid),
            developmentKey,
          ).message
        }\n`,
      );
      expect(result.stderr).toContain(`--from-key-file ${developmentKey} `);
      expect(result.stderr).toContain('keys rewrap');
      expect(await listed()).toEqual(before);
    };

    beforeAll(async () => {
      cli = await createCliHarness();
      cli.env.KEY_ENCRYPTION_KEY = STORED_UNDER;
      expect((await cli.run(['keys', 'rotate'])).code).toBe(0);
      before = await listed();
    });
    afterAll(() => cli.close());

    it('with another KEY_ENCRYPTION_KEY, keys rotate and keys retire refuse, naming the keys and keys rewrap', async () => {
      cli.env.KEY_ENCRYPTION_KEY = randomBytes(32).toString('hex');
      await expectRefused(['keys', 'rotate']);
      await expectRefused(['keys', 'retire', '--', before[0]!.kid]);
    });

    it.runIf(backend === 'pglite')(
      'without KEY_ENCRYPTION_KEY on the embedded database, they refuse rather than make a key under the development key',
      async () => {
        delete cli.env.KEY_ENCRYPTION_KEY;
        writeFileSync(join(cli.env.DATA_DIR!, 'key-encryption-key'), `${randomBytes(32).toString('hex')}\n`, { mode: 0o600 });
        await expectRefused(['keys', 'rotate', '--alg', 'ES256']);
        await expectRefused(['keys', 'retire', '--', before[0]!.kid]);
      },
    );

    it('with the key they were stored under, both go on as before', async () => {
      cli.env.KEY_ENCRYPTION_KEY = STORED_UNDER;
      expect((await cli.run(['keys', 'rotate'])).code).toBe(0);
      const retired = await cli.run(['keys', 'retire', '--', before[0]!.kid]);
      expect(retired.code, retired.stderr).toBe(0);
      expect(retired.stdout).toContain(`retired ${before[0]!.kid}`);
    });
  },
);
