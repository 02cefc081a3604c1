import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sha256Hex } from '../../src/oauth/secrets.js';
import { createCliHarness, usageErrorLine, type CliHarness } from '../helpers/cli.js';
import { backend } from '../helpers/test-database.js';

// `oauth-service registration-tokens` (issue 19): the initial access tokens of registration.policy
// initialAccessToken (RFC 7591 section 3), as an operator makes, lists and revokes them.
describe(`oauth-service registration-tokens (${backend})`, { timeout: 120_000 }, () => {
  let cli: CliHarness;

  beforeAll(async () => {
    cli = await createCliHarness({ registration: { policy: 'initialAccessToken' } });
  });
  afterAll(() => cli.close());

  it('create --json prints the token once with its expiry and uses; only its hash is stored', async () => {
    const before = Date.now();
    const created = await cli.json(['registration-tokens', 'create', '--uses', '3', '--expires-in', '3600']);
    expect(created).toEqual({
      id: expect.any(Number),
      token: expect.any(String),
      token_sha256: expect.stringMatching(/^[0-9a-f]{64}$/),
      expires_at: expect.any(String),
      uses_remaining: 3,
      grant_types: [],
      scopes: [],
    });
    const expiresAt = Date.parse(created.expires_at);
    expect(expiresAt).toBeGreaterThanOrEqual(before + 3_600_000 - 1000);
    expect(expiresAt).toBeLessThanOrEqual(Date.now() + 3_600_000 + 1000);
    const stored = await cli.withDeps((deps) => deps.stores.registrations.listTokens());
    expect(stored.find((token) => token.id === created.id)!.token).toBe(sha256Hex(created.token));
    expect(created.token_sha256).toBe(sha256Hex(created.token));
    expect(JSON.stringify(await cli.json(['registration-tokens', 'list']))).not.toContain(created.token);

    const unlimited = await cli.json(['registration-tokens', 'create']);
    expect(unlimited).toMatchObject({ expires_at: null, uses_remaining: null });
    const text = await cli.run(['registration-tokens', 'create', '--uses', '1']);
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/^created initial access token \d+ \(1 registration, does not expire\):\n {2}\S{40,}\n/);
  });

  it('list shows each token with its state; revoke stops one at once', async () => {
    const token = await cli.json(['registration-tokens', 'create', '--uses', '5']);
    const listed = (await cli.json(['registration-tokens', 'list'])).find((row: { id: number }) => row.id === token.id);
    // token_sha256 is what an apply file names it by (docs/operations.md "Provisioning").
    expect(listed).toEqual({
      id: token.id,
      token_sha256: sha256Hex(token.token),
      state: 'usable',
      uses_remaining: 5,
      expires_at: null,
      created_at: expect.any(String),
      revoked_at: null,
      grant_types: [],
      scopes: [],
    });
    expect(await cli.json(['registration-tokens', 'revoke', String(token.id)])).toEqual({ revoked: true, id: token.id });
    const after = (await cli.json(['registration-tokens', 'list'])).find((row: { id: number }) => row.id === token.id);
    expect(after).toMatchObject({ state: 'revoked', revoked_at: expect.any(String) });
    expect(await cli.withDeps(async (deps) => deps.stores.registrations.findUsableToken(sha256Hex(token.token), new Date()))).toBeNull();
    const table = await cli.run(['registration-tokens', 'list']);
    expect(table.stdout).toMatch(/^ID\s+SHA-256\s+STATE\s+USES LEFT\s+EXPIRES AT\s+CREATED AT\s+ALLOWS\n/);
    const row = table.stdout.split('\n').find((line) => line.startsWith(`${token.id} `));
    expect(row).toContain(`${sha256Hex(token.token).slice(0, 12)}…`);
  });

  it('bad arguments are usage errors (exit 2, one line)', async () => {
    for (const [argv, message] of [
      [['registration-tokens', 'create', '--uses', '0'], "--uses must be an integer from 1 to 1000000, not '0'"],
      [['registration-tokens', 'create', '--uses', 'many'], "--uses must be an integer from 1 to 1000000, not 'many'"],
      [['registration-tokens', 'create', '--expires-in', '1.5'], "--expires-in must be an integer from 1 to 315360000, not '1.5'"],
      [['registration-tokens', 'revoke'], 'missing <id>'],
      [['registration-tokens', 'revoke', '999999'], 'no live initial access token with id 999999'],
      [['registration-tokens', 'revoke', 'abc'], 'no initial access token with id abc'],
      [
        ['registration-tokens', 'rotate'],
        "unknown subcommand 'registration-tokens rotate': expected create|list|revoke (try 'registration-tokens --help')",
      ],
    ] as const) {
      expect({ argv, line: usageErrorLine(await cli.run([...argv])) }).toEqual({ argv, line: `oauth-service: ${message}` });
    }
    const help = await cli.run(['registration-tokens', '--help']);
    expect(help.stdout).toContain('Initial access tokens (RFC 7591 section 3)');
  });
});
