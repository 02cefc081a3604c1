import { calculateJwkThumbprint, importJWK, jwtVerify, SignJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import { generateSigningKey } from '../../src/oauth/keys/signing-key-material.js';
import { SIGNING_ALGORITHMS } from '../../src/oauth/keys/signing-keys.js';

// Keys are made and exported by jose (issue 16: no hand-written JOSE); verified here with jose as a relying party would.

describe('signing key material', () => {
  it.each(SIGNING_ALGORITHMS)(
    '%s: a token signed with the private JWK verifies with the published one, whose kid is its thumbprint',
    async (alg) => {
      const material = await generateSigningKey(alg);
      expect(material.publicJwk).toMatchObject({ kid: material.kid, alg, use: 'sig' });
      expect(material.publicJwk).not.toHaveProperty('d');
      expect(material.privateJwk).toHaveProperty('d');
      const { kid: _kid, alg: _alg, use: _use, ...bare } = material.publicJwk;
      expect(await calculateJwkThumbprint(bare, 'sha256')).toBe(material.kid);

      const token = await new SignJWT({ sub: 'user-1' })
        .setProtectedHeader({ alg, kid: material.kid })
        .setIssuer('https://issuer.example')
        .sign(await importJWK(material.privateJwk, alg));
      const { payload, protectedHeader } = await jwtVerify(token, await importJWK(material.publicJwk, alg), {
        issuer: 'https://issuer.example',
      });
      expect(payload.sub).toBe('user-1');
      expect(protectedHeader.kid).toBe(material.kid);
    },
  );

  it('each key is new', async () => {
    const [a, b] = await Promise.all([generateSigningKey('ES256'), generateSigningKey('ES256')]);
    expect(a.kid).not.toBe(b.kid);
  });
});
