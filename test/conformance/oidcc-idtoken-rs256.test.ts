import { compactVerify, decodeProtectedHeader, importJWK } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { discover, discoveredJwks, openIdProvider, suiteCodeFlow, type OpenIdProvider } from './support.js';

// oidcc-idtoken-rs256: a client that registered no algorithm gets RS256 ID tokens (Core 3.1.3.7 and Registration
// 2: the default), verifiable with the RSA key of that kid at jwks_uri.

describe('oidcc-idtoken-rs256', () => {
  let op: OpenIdProvider;
  beforeAll(async () => (op = await openIdProvider()));
  afterAll(() => op.close());

  it('the ID token is RS256, signed by the published RSA key its kid names', async () => {
    expect((await discover(op.server)).id_token_signing_alg_values_supported).toContain('RS256');
    const { tokens } = await suiteCodeFlow(op);
    const header = decodeProtectedHeader(tokens.id_token);
    expect(header.alg).toBe('RS256');
    const jwk = (await discoveredJwks(op.server)).keys.find((key) => key.kid === header.kid);
    expect(jwk).toMatchObject({ kty: 'RSA' });
    expect(jwk).not.toHaveProperty('d');
    await compactVerify(tokens.id_token, await importJWK(jwk!, 'RS256'));
  });
});
