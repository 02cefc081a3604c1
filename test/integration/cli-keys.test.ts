import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCliHarness, usageErrorLine, type CliHarness } from '../helpers/cli.js';
import { backend } from '../helpers/test-database.js';

// oauth-service keys list|rotate|retire (issue 16): what an operator does with the signing keys.
describe(`oauth-service keys (${backend})`, { timeout: 120_000 }, () => {
  let cli: CliHarness;
  beforeAll(async () => {
    cli = await createCliHarness();
  });
  afterAll(() => cli.close());

  it('without KEY_ENCRYPTION_KEY, rotate says which variable is missing and how to make one', async () => {
    const result = await cli.run(['keys', 'rotate']);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(
      /KEY_ENCRYPTION_KEY is not set: it must be 32 random bytes, as 64 hex characters or base64 \(openssl rand -hex 32\)/,
    );
  });

  it('list says there is no key yet; rotate makes the first key (signing now) and its successor (published ahead)', async () => {
    cli.env.KEY_ENCRYPTION_KEY = randomBytes(32).toString('hex');
    expect((await cli.run(['keys', 'list'])).stdout).toContain('no signing keys yet');
    const rotated = await cli.run(['keys', 'rotate', '--json']);
    expect(rotated.code).toBe(0);
    const key = JSON.parse(rotated.stdout);
    expect(key).toMatchObject({ alg: 'RS256', retired_at: null });
    const listed = JSON.parse((await cli.run(['keys', 'list', '--json'])).stdout) as Array<{ kid: string; state: string }>;
    expect(listed.map((entry) => entry.state)).toEqual(['signing', 'published ahead']);
    expect(listed[1]!.kid).toBe(key.kid);
    // The first key, which signs now, is said and audited too, not only its successor.
    expect(key.made).toEqual([expect.objectContaining({ kid: listed[0]!.kid, alg: 'RS256' })]);
    const audited = JSON.parse((await cli.run(['audit', 'list', '--type', 'signing_key.rotated', '--json'])).stdout);
    expect(audited[0]).toMatchObject({ subject_id: key.kid, details: { alg: 'RS256', made: [listed[0]!.kid] } });
    expect((await cli.run(['keys', 'list'])).stdout).toMatch(/^kid\s+alg\s+state/);
    // With a key signing, a rotation makes the successor alone.
    const again = await cli.run(['keys', 'rotate']);
    expect(again.stdout).toMatch(/^new RS256 key \S+: published now, signs from /);
    expect(again.stdout).not.toContain('first');
  });

  it('rotate --alg takes ES256 and EdDSA, and nothing else', async () => {
    expect(JSON.parse((await cli.run(['keys', 'rotate', '--alg', 'EdDSA', '--json'])).stdout).alg).toBe('EdDSA');
    expect(usageErrorLine(await cli.run(['keys', 'rotate', '--alg', 'HS256']))).toBe(
      'oauth-service: --alg must be one of RS256, ES256, EdDSA',
    );
  });

  it('retire <kid> takes a key out at once; a kid that does not exist, or is retired already, is a usage error', async () => {
    const listed = JSON.parse((await cli.run(['keys', 'list', '--json'])).stdout) as Array<{ kid: string; alg: string; state: string }>;
    const signing = listed.find((entry) => entry.alg === 'RS256' && entry.state === 'signing')!;
    // A kid is a base64url thumbprint and may start with '-': it goes after '--'.
    const retired = await cli.run(['keys', 'retire', '--json', '--', signing.kid]);
    expect(retired.code).toBe(0);
    expect(JSON.parse(retired.stdout)).toMatchObject({ kid: signing.kid, retired: true });
    const after = JSON.parse((await cli.run(['keys', 'list', '--json'])).stdout) as Array<{ kid: string; state: string }>;
    expect(after.find((entry) => entry.kid === signing.kid)!.state).toBe('retired');
    // Exit code 2, as `apps show`, `resources delete` or `registration-tokens revoke` answer an unknown id.
    expect(usageErrorLine(await cli.run(['keys', 'retire', 'no-such-kid']))).toBe(
      'oauth-service: no signing key no-such-kid, or it is retired already',
    );
    expect(usageErrorLine(await cli.run(['keys', 'retire', '--json', 'no-such-kid']))).toBe(
      'oauth-service: no signing key no-such-kid, or it is retired already',
    );
    expect(usageErrorLine(await cli.run(['keys', 'retire', '--', signing.kid]))).toBe(
      `oauth-service: no signing key ${signing.kid}, or it is retired already`,
    );
    expect(usageErrorLine(await cli.run(['keys', 'retire']))).toBe('oauth-service: missing the kid of the key to retire');
  });
});
