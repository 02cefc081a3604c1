import { afterEach, describe, expect, it } from 'vitest';
import { capturedLogLines } from '../helpers/log-lines.js';
import { createClient } from '../helpers/factories.js';
import { backend } from '../helpers/test-database.js';
import { basicAuth, buildTestServer, form, FORM, type TestServer } from '../helpers/test-server.js';

// The failure limits count per address, so the address must be the client's (finding 6): trustProxy believes
// X-Forwarded-For only from the proxies it names (addresses, CIDRs or a hop count), never from a client that
// writes the header itself; and the service says so when a proxy's header arrives while trustProxy is off.

const LIMITS = { maxFailures: 2, lockoutSeconds: 300 };

describe(`trustProxy and the addresses the limits count (${backend})`, () => {
  let server: TestServer;
  afterEach(() => server.close());

  const attempt = (secret: string, remoteAddress: string, forwardedFor?: string) =>
    server.app.inject({
      method: 'POST',
      url: '/oauth/token',
      remoteAddress,
      headers: { ...FORM, authorization: basicAuth(clientId, secret), ...(forwardedFor && { 'x-forwarded-for': forwardedFor }) },
      payload: form({ grant_type: 'client_credentials' }),
    });
  let clientId = '';

  it('with the proxy named by address, a header from anyone else is ignored: a forged address can neither dodge nor frame', async () => {
    server = await buildTestServer({ config: { trustProxy: ['10.0.0.2'], rateLimit: LIMITS } });
    clientId = (await createClient(server.deps)).uid;
    // An attacker connecting directly writes a victim's address in the header: it is not believed.
    for (let i = 0; i < LIMITS.maxFailures; i += 1) expect((await attempt('wrong', '203.0.113.9', '198.51.100.1')).statusCode).toBe(401);
    expect((await attempt('wrong', '203.0.113.9', '198.51.100.66')).statusCode).toBe(429);
    // The victim, through the proxy, is not locked out.
    expect((await attempt('wrong', '10.0.0.2', '198.51.100.1')).statusCode).toBe(401);
    // The proxy's word about the attacker is believed: the attacker's pair is the locked one.
    expect((await attempt('wrong', '10.0.0.2', '203.0.113.9')).statusCode).toBe(429);
  });

  it('a CIDR and a hop count are accepted too (TRUST_PROXY takes the same forms)', async () => {
    server = await buildTestServer({ config: { trustProxy: '10.0.0.0/8', rateLimit: LIMITS } });
    clientId = (await createClient(server.deps)).uid;
    for (let i = 0; i < LIMITS.maxFailures; i += 1) await attempt('wrong', '10.1.2.3', '192.0.2.50');
    expect((await attempt('wrong', '10.9.9.9', '192.0.2.50')).statusCode).toBe(429);
    await server.close();
    server = await buildTestServer({ config: { trustProxy: 1, rateLimit: LIMITS } });
    clientId = (await createClient(server.deps)).uid;
    // One hop: the address the proxy saw is the last one of the header; what the client wrote before it is not.
    for (let i = 0; i < LIMITS.maxFailures; i += 1) await attempt('wrong', '10.0.0.2', `198.51.100.${i}, 192.0.2.60`);
    expect((await attempt('wrong', '10.0.0.2', '1.1.1.1, 192.0.2.60')).statusCode).toBe(429);
  });

  it('warns once when requests arrive with X-Forwarded-For while trustProxy is off', async () => {
    const { stream: logStream, raw: lines } = capturedLogLines();
    server = await buildTestServer({ config: { log: { level: 'warn', format: 'json' } }, logStream });
    clientId = 'nobody';
    await attempt('x', '10.0.0.2', '192.0.2.1');
    await attempt('x', '10.0.0.2', '192.0.2.2');
    const warnings = lines.filter((line) => line.includes('"proxy.untrusted"'));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain('trustProxy is off');
  });

  it('warns at boot that trustProxy true believes any sender', async () => {
    const { stream: logStream, raw: lines } = capturedLogLines();
    server = await buildTestServer({ config: { trustProxy: true, log: { level: 'warn', format: 'json' } }, logStream });
    await server.app.ready();
    expect(lines.some((line) => line.includes('trustProxy is true'))).toBe(true);
  });
});
