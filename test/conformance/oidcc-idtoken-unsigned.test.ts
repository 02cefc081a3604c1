import { decodeJwt, decodeProtectedHeader, UnsecuredJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApplicationInvalid } from '../../src/oauth/clients/applications.js';
import { authorizeUrl } from '../helpers/end-user.js';
import { discover, openIdProvider, redirectedError, suiteCodeFlow, suiteRequest, type OpenIdProvider } from './support.js';

// oidcc-idtoken-unsigned: the suite asks for ID tokens with alg "none" (Core 3.1.3.7 item 7 allows it only
// when registered). This OP never issues one: "none" is neither advertised nor registrable, every ID token is
// signed, and an unsigned ID token presented back as id_token_hint is refused.

describe('oidcc-idtoken-unsigned', () => {
  let op: OpenIdProvider;
  beforeAll(async () => (op = await openIdProvider()));
  afterAll(() => op.close());

  it('"none" is not in id_token_signing_alg_values_supported and cannot be registered', async () => {
    expect((await discover(op.server)).id_token_signing_alg_values_supported).not.toContain('none');
    await expect(op.newClient({ idTokenSignedResponseAlg: 'none' })).rejects.toBeInstanceOf(ApplicationInvalid);
  });

  it('the ID token is signed, and an alg=none copy of it as id_token_hint is invalid_request', async () => {
    const { tokens } = await suiteCodeFlow(op);
    expect(decodeProtectedHeader(tokens.id_token).alg).not.toBe('none');
    const unsigned = new UnsecuredJWT(decodeJwt(tokens.id_token)).encode();
    const request = suiteRequest(op.client, { id_token_hint: unsigned });
    const redirect = await op.agent.request({ method: 'GET', url: authorizeUrl(request) });
    expect(redirectedError(redirect, request)).toBe('invalid_request');
  });
});
