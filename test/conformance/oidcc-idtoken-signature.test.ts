import { compactVerify, createLocalJWKSet } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { discoveredJwks, openIdProvider, suiteCodeFlow, type OpenIdProvider } from './support.js';

// oidcc-idtoken-signature: the ID token's signature verifies against the keys at jwks_uri (Core 3.1.3.7 item 6,
// 10.1); the same check refuses the token once one character of its signature is changed.

describe('oidcc-idtoken-signature', () => {
  let op: OpenIdProvider;
  beforeAll(async () => (op = await openIdProvider()));
  afterAll(() => op.close());

  it('the signature verifies with the JWKS, and a changed signature does not', async () => {
    const { tokens } = await suiteCodeFlow(op);
    const keys = createLocalJWKSet(await discoveredJwks(op.server));
    await compactVerify(tokens.id_token, keys);
    const last = tokens.id_token.at(-2) === 'A' ? 'B' : 'A';
    const tampered = `${tokens.id_token.slice(0, -2)}${last}${tokens.id_token.at(-1)}`;
    await expect(compactVerify(tampered, keys)).rejects.toThrow();
  });
});
