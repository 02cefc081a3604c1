import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { discover, ISSUER, openIdProvider, suiteCodeFlow, type OpenIdProvider } from './support.js';

// oidcc-discovery-issuer-not-matching-config (Config OP): the issuer in the discovery document MUST be identical
// to the URL the document was fetched under, minus /.well-known/openid-configuration (Discovery 4.3), and the iss
// of ID tokens (Core 3.1.3.7 item 2). The issuer is the configured baseUrl: a request naming another host (Host
// header) does not change it, so a client cannot be made to accept a foreign issuer.

describe('oidcc-discovery-issuer-not-matching-config', () => {
  let op: OpenIdProvider;
  beforeAll(async () => (op = await openIdProvider({ config: { baseUrl: `${ISSUER}/` } })));
  afterAll(() => op.close());

  it('the issuer is the discovery URL prefix, without the configured trailing slash', async () => {
    const document = await discover(op.server);
    expect(`${document.issuer as string}/.well-known/openid-configuration`).toBe(`${ISSUER}/.well-known/openid-configuration`);
  });

  it('the Host header of the request does not change the issuer', async () => {
    const response = await op.server.app.inject({
      method: 'GET',
      url: '/.well-known/openid-configuration',
      headers: { host: 'attacker.example', 'x-forwarded-host': 'attacker.example' },
    });
    expect(response.json().issuer).toBe(ISSUER);
    expect(JSON.stringify(response.json())).not.toContain('attacker.example');
  });

  it('the ID token iss and the RFC 9207 iss of the authorization response are the discovered issuer', async () => {
    const { claims } = await suiteCodeFlow(op);
    expect(claims.iss).toBe(ISSUER);
  });
});
