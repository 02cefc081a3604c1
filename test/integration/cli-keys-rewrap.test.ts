import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createLocalJWKSet, decodeProtectedHeader, jwtVerify } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { publishedJwks, rotateSigningKey } from '../../src/oauth/keys/signing-key-service.js';
import { createCliHarness, usageErrorLine, type CliHarness } from '../helpers/cli.js';
import { backend } from '../helpers/test-database.js';

// oauth-service keys rewrap (issue 31 item 6): the operator moves the signing keys from one key-encryption key to
// another (the development key of data/key-encryption-key to a real KEY_ENCRYPTION_KEY, or one real key to the
// next) in one transaction. As in oidcc-server-rotate-keys, what relying parties see must hold: the same keys are
// published under the same kids, what they signed before still verifies, and they go on signing. The users' TOTP
// secrets (issue 35), stored under the same key, move with them.

const OLD = randomBytes(32).toString('hex');
const NEW = randomBytes(32).toString('base64');
const TOTP_SECRET = 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP';

interface ListedKey {
  kid: string;
  state: string;
}

describe(`oidcc-server-rotate-keys: oauth-service keys rewrap (${backend})`, { timeout: 120_000 }, () => {
  let cli: CliHarness;
  let listedBefore: ListedKey[];
  let signedBefore: string;
  let totpUserId: number;
  const totpSecret = () => cli.withDeps(async (deps) => (await deps.stores.secondFactors.findTotp(totpUserId))?.secret);
  const listed = async () => JSON.parse((await cli.run(['keys', 'list', '--json'])).stdout) as ListedKey[];
  /** A JWT signed as the service signs (the active RS256 key), and the JWKS it publishes, with the current env. */
  const signedAndPublished = () =>
    cli.withDeps(async (deps) => ({ jwt: await deps.signer.sign({ sub: 'rp-check' }), jwks: await publishedJwks(deps) }));
  const verifies = async (jwt: string) => {
    const { jwks } = await signedAndPublished();
    return (await jwtVerify(jwt, createLocalJWKSet(jwks as Parameters<typeof createLocalJWKSet>[0]))).payload.sub;
  };

  beforeAll(async () => {
    cli = await createCliHarness();
    cli.env.KEY_ENCRYPTION_KEY = OLD;
    expect((await cli.run(['keys', 'rotate'])).code).toBe(0);
    expect((await cli.run(['keys', 'rotate', '--alg', 'ES256'])).code).toBe(0);
    listedBefore = await listed();
    signedBefore = (await signedAndPublished()).jwt;
    totpUserId = await cli.withDeps(async (deps) => {
      const user = await deps.stores.userAdmin.create({ username: 'totp-user', passwordHash: 'x' });
      await deps.stores.secondFactors.saveTotp(user.id, TOTP_SECRET, [], new Date());
      return user.id;
    });
  });
  afterAll(() => cli.close());

  it('with the old key in a file (--from-key-file), re-encrypts every key under KEY_ENCRYPTION_KEY; nothing a relying party sees changes', async () => {
    const file = join(cli.env.DATA_DIR!, 'old-key-encryption-key');
    writeFileSync(file, `${OLD}\n`, { mode: 0o600 });
    cli.env.KEY_ENCRYPTION_KEY = NEW;
    // Before the rewrap the new key signs nothing: the keys were stored under the old one.
    await expect(signedAndPublished()).rejects.toThrow(/does not decrypt/);

    const result = await cli.run(['keys', 'rewrap', '--from-key-file', file]);
    expect(result.code, result.stderr).toBe(0);
    const kids = listedBefore.map((key) => key.kid);
    expect(result.stdout).toContain(`re-encrypted ${kids.length} signing keys under KEY_ENCRYPTION_KEY: ${kids.join(', ')}`);
    expect(result.stdout).toContain(`the old key in ${file} is no longer needed: delete it`);
    expect(result.stdout).toContain("re-encrypted 1 TOTP secret of users' second factors");
    expect(await totpSecret()).toBe(TOTP_SECRET);

    expect(await listed()).toEqual(listedBefore);
    expect(await verifies(signedBefore)).toBe('rp-check');
    const { jwt } = await signedAndPublished();
    expect(decodeProtectedHeader(jwt).kid).toBe(decodeProtectedHeader(signedBefore).kid);
    expect(await verifies(jwt)).toBe('rp-check');
  });

  it('run again, it changes nothing: every key is under KEY_ENCRYPTION_KEY already', async () => {
    cli.env.OLD_KEY = OLD;
    const again = await cli.run(['keys', 'rewrap', '--from-env', 'OLD_KEY', '--json']);
    expect(again.code, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout)).toEqual({ rewrapped: [], unchanged: listedBefore.map((key) => key.kid), totp_secrets: 0 });
  });

  it('a key that decrypts neither with the old key nor with KEY_ENCRYPTION_KEY rolls the whole run back, naming it', async () => {
    // Another instance, started with a key-encryption key of its own, made one more key (keys rotate refuses to).
    cli.env.KEY_ENCRYPTION_KEY = randomBytes(32).toString('hex');
    await cli.withDeps((deps) => rotateSigningKey(deps, 'RS256'));
    const foreign = (await listed()).at(-1)!.kid;
    // Moving on from NEW to a third key: every other key would be re-encrypted, but not that one.
    cli.env.OLD_KEY = NEW;
    cli.env.KEY_ENCRYPTION_KEY = randomBytes(32).toString('hex');
    const refused = await cli.run(['keys', 'rewrap', '--from-env', 'OLD_KEY']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toBe(
      `oauth-service: nothing was re-encrypted: the private key of ${foreign} decrypts neither with the old key given nor with ` +
        'KEY_ENCRYPTION_KEY (is the old key the one the keys were stored under?)\n',
    );
    // The keys re-encrypted before it met that one are back under NEW: it signs with them as before.
    cli.env.KEY_ENCRYPTION_KEY = NEW;
    expect(await verifies((await signedAndPublished()).jwt)).toBe('rp-check');
  });

  it('names what is missing or wrong in one line with exit code 2', async () => {
    cli.env.KEY_ENCRYPTION_KEY = NEW;
    cli.env.NOT_A_KEY = 'not a key';
    const cases: Array<[string[], string]> = [
      [[], 'give the key the signing keys are stored under now: --from-key-file PATH or --from-env NAME'],
      [
        ['--from-env', 'OLD_KEY', '--from-key-file', 'x'],
        'give the key the signing keys are stored under now: --from-key-file PATH or --from-env NAME',
      ],
      [['--from-env', 'UNSET_VARIABLE'], '--from-env UNSET_VARIABLE: UNSET_VARIABLE is not set'],
      [['--from-env', 'NOT_A_KEY'], '--from-env NOT_A_KEY: not a key-encryption key (32 bytes, as 64 hex characters or base64)'],
      [
        ['--from-key-file', '/nonexistent/key'],
        "--from-key-file /nonexistent/key: ENOENT: no such file or directory, open '/nonexistent/key'",
      ],
      [['--from-env', 'KEY_ENCRYPTION_KEY'], 'the old key is KEY_ENCRYPTION_KEY itself: there is nothing to re-encrypt'],
    ];
    for (const [options, message] of cases) {
      expect(usageErrorLine(await cli.run(['keys', 'rewrap', ...options])), options.join(' ')).toBe(`oauth-service: ${message}`);
    }
    delete cli.env.KEY_ENCRYPTION_KEY;
    expect(usageErrorLine(await cli.run(['keys', 'rewrap', '--from-env', 'OLD_KEY']))).toBe(
      'oauth-service: keys rewrap re-encrypts under KEY_ENCRYPTION_KEY: set it to the new key (openssl rand -hex 32)',
    );
    expect((await cli.run(['keys', 'rewrap', '--help'])).stdout).toContain('keys rewrap --from-key-file PATH | --from-env NAME');
  });
});
