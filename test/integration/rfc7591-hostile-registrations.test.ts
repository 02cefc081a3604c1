import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backend } from '../helpers/test-database.js';
import { buildTestServer, type TestServer } from '../helpers/test-server.js';

// RFC 7591 section 3.2.2 (issue 19): hostile registrations each get a specific 4xx error, never a 500 or a hang,
// and nothing is stored.

const JSON_HEADERS = { 'content-type': 'application/json' };
const OPEN = { policy: 'open' as const, perAddressPerMinute: 0 };

describe(`RFC 7591 hostile registrations (${backend})`, () => {
  let server: TestServer;
  beforeAll(async () => {
    // A body limit large enough that the field limits, not the body limit, answer the oversized lists and names.
    server = await buildTestServer({ config: { registration: OPEN, bodyLimit: 4 * 1024 * 1024 } });
  });
  afterAll(() => server.close());

  const register = (payload: object | string) =>
    server.app.inject({ method: 'POST', url: '/oauth/register', headers: JSON_HEADERS, payload });
  const outcome = async (payload: object) => {
    const response = await register(payload);
    return { status: response.statusCode, error: response.json().error as string };
  };
  const dynamicCount = async () => (await server.deps.stores.applicationAdmin.list()).filter((a) => a.registeredBy === 'dynamic').length;

  it('javascript: and data: redirect URIs are invalid_redirect_uri', async () => {
    for (const uri of [
      'javascript:alert(document.domain)',
      'JavaScript://rp.example/%0Aalert(1)',
      'data:text/html,<script>alert(1)</script>',
      'data:,x',
    ])
      expect({ uri, ...(await outcome({ redirect_uris: [uri] })) }).toEqual({ uri, status: 400, error: 'invalid_redirect_uri' });
  });

  it('an http: redirect URI on a non-loopback host, and a redirect URI with a fragment, are invalid_redirect_uri', async () => {
    for (const uri of [
      'http://rp.example/cb',
      'http://10.0.0.1/cb',
      'http://127.0.0.1.nip.io/cb',
      'https://rp.example/cb#frag',
      'https://rp.example/cb#',
    ])
      expect({ uri, ...(await outcome({ redirect_uris: [uri] })) }).toEqual({ uri, status: 400, error: 'invalid_redirect_uri' });
  });

  it('10,000 redirect URIs are invalid_redirect_uri (at most 20), answered at once', async () => {
    const started = Date.now();
    const redirect_uris = Array.from({ length: 10_000 }, (_, i) => `https://rp.example/cb/${i}`);
    const response = await register({ redirect_uris });
    expect({ status: response.statusCode, body: response.json() }).toEqual({
      status: 400,
      body: { error: 'invalid_redirect_uri', error_description: 'redirect_uris may hold at most 20 values.' },
    });
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it('a 1 MB client_name is invalid_client_metadata by the field limit (255 characters)', async () => {
    expect(await outcome({ redirect_uris: ['https://rp.example/cb'], client_name: 'x'.repeat(1024 * 1024) })).toEqual({
      status: 400,
      error: 'invalid_client_metadata',
    });
  });

  it('a logo_uri (or another display URI) on a loopback, private or link-local host is invalid_client_metadata', async () => {
    const hosts = [
      '127.0.0.1',
      '169.254.169.254',
      '10.0.0.1',
      '192.168.1.1',
      '172.16.0.1',
      '[::1]',
      '[fe80::1]',
      '[fd00::1]',
      '[::ffff:127.0.0.1]',
      'localhost',
      'LOCALHOST.',
      'printer.local',
      'metadata.google.internal',
      'intranet',
      '2130706433',
      '0x7f.1',
      '0.0.0.0',
    ];
    for (const host of hosts)
      expect({ host, ...(await outcome({ redirect_uris: ['https://rp.example/cb'], logo_uri: `https://${host}/logo.png` })) }).toEqual({
        host,
        status: 400,
        error: 'invalid_client_metadata',
      });
    for (const member of ['client_uri', 'policy_uri', 'tos_uri'])
      expect(await outcome({ redirect_uris: ['https://rp.example/cb'], [member]: 'https://169.254.169.254/latest/meta-data/' })).toEqual({
        status: 400,
        error: 'invalid_client_metadata',
      });
    // Not https, credentials in the URL, or not a URL at all.
    for (const logo_uri of [
      'http://rp.example/logo.png',
      'javascript:alert(1)',
      'data:image/png;base64,AAAA',
      'https://user:pw@rp.example/l.png',
      '/logo.png',
    ])
      expect({ logo_uri, ...(await outcome({ redirect_uris: ['https://rp.example/cb'], logo_uri })) }).toEqual({
        logo_uri,
        status: 400,
        error: 'invalid_client_metadata',
      });
  });

  it('a display URI on an IPv6 form of an internal IPv4 address, or on a single-label name with a trailing dot, is invalid_client_metadata', async () => {
    const hosts = ['[64:ff9b::a9fe:a9fe]', '[2002:a9fe:a9fe::]', '[::ffff:0:a9fe:a9fe]', '[::127.0.0.1]', '[2001::1]', 'intranet.'];
    for (const member of ['logo_uri', 'client_uri', 'policy_uri', 'tos_uri'])
      for (const host of hosts)
        expect({ member, host, ...(await outcome({ redirect_uris: ['https://rp.example/cb'], [member]: `https://${host}/` })) }).toEqual({
          member,
          host,
          status: 400,
          error: 'invalid_client_metadata',
        });
    expect(await dynamicCount()).toBe(0);
  });

  it('non-string members are refused with the error of their member', async () => {
    const uris = { redirect_uris: ['https://rp.example/cb'] };
    for (const [payload, error] of [
      [{ redirect_uris: [42] }, 'invalid_redirect_uri'],
      [{ redirect_uris: 'https://rp.example/cb' }, 'invalid_redirect_uri'],
      [{ redirect_uris: [{ href: 'https://rp.example/cb' }] }, 'invalid_redirect_uri'],
      [{ ...uris, client_name: 42 }, 'invalid_client_metadata'],
      [{ ...uris, client_name: ['a'] }, 'invalid_client_metadata'],
      [{ ...uris, grant_types: [null] }, 'invalid_client_metadata'],
      [{ ...uris, token_endpoint_auth_method: ['none'] }, 'invalid_client_metadata'],
      [{ ...uris, logo_uri: { url: 'https://rp.example/l.png' } }, 'invalid_client_metadata'],
      [{ ...uris, contacts: [{}] }, 'invalid_client_metadata'],
      [{ ...uris, scope: ['read'] }, 'invalid_client_metadata'],
      [{ ...uris, software_id: 1 }, 'invalid_client_metadata'],
      [{ ...uris, application_type: true }, 'invalid_client_metadata'],
      [{ ...uris, client_name: 'a\u0000b' }, 'invalid_client_metadata'],
      // A NUL reached PostgreSQL (a 500); another control character was stored.
      [{ ...uris, contacts: ['a\u0000@b.example'] }, 'invalid_client_metadata'],
      [{ ...uris, contacts: ['a\u0001b@c.example'] }, 'invalid_client_metadata'],
      [{ ...uris, client_uri: 'https://a.example/\u0000' }, 'invalid_client_metadata'],
      [{ ...uris, tos_uri: 'https://a.example/\u0000' }, 'invalid_client_metadata'],
      // Stored as U+FFFD, silently changed.
      [{ ...uris, client_name: 'a\ud800b' }, 'invalid_client_metadata'],
    ] as const)
      expect({ payload, ...(await outcome(payload)) }).toEqual({ payload, status: 400, error });
  });

  it('a member of a fixed set of values sent as an array nested thousands deep is invalid_client_metadata naming a short part of it (quoting it whole overflowed the stack: a 500)', async () => {
    const deep = `${'['.repeat(6000)}${']'.repeat(6000)}`;
    const shown = `${'['.repeat(34)}${']'.repeat(34)}`;
    for (const [member, description] of [
      ['token_endpoint_auth_method', `token_endpoint_auth_method: ${shown} is not supported.`],
      ['application_type', `application_type: ${shown} is not supported.`],
      ['refresh_tokens', `refresh_tokens: ${shown} is not supported.`],
      ['profile', `Profile must be none or fapi2, not "${shown.slice(0, 40)}".`],
    ]) {
      const response = await register(`{"redirect_uris":["https://rp.example/cb"],"${member}":${deep}}`);
      expect({ member, status: response.statusCode, body: response.json() }).toEqual({
        member,
        status: 400,
        body: { error: 'invalid_client_metadata', error_description: description },
      });
    }
    const long = await register({ redirect_uris: ['https://rp.example/cb'], application_type: ['x'.repeat(5000)] });
    expect(long.json().error_description).toBe(`application_type: ["${'x'.repeat(98)}... is not supported.`);
  });

  it('a body that is not a JSON object is invalid_request; nothing above was stored', async () => {
    for (const payload of ['[]', '"x"', '{"redirect_uris":', 'null']) {
      const response = await register(payload);
      expect({ payload, status: response.statusCode, error: response.json().error }).toEqual({
        payload,
        status: 400,
        error: 'invalid_request',
      });
    }
    expect(await dynamicCount()).toBe(0);
  });
});

describe(`RFC 7591 registration body limit (${backend})`, () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await buildTestServer({ config: { registration: OPEN } });
  });
  afterAll(() => server.close());

  it('a 1 MB client_name under the default body limit is 413 invalid_request, JSON', async () => {
    const response = await server.app.inject({
      method: 'POST',
      url: '/oauth/register',
      headers: JSON_HEADERS,
      payload: { redirect_uris: ['https://rp.example/cb'], client_name: 'x'.repeat(1024 * 1024) },
    });
    expect({ status: response.statusCode, error: response.json().error }).toEqual({ status: 413, error: 'invalid_request' });
  });
});
