import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { argon2Hasher } from '../../src/storage/argon2-hasher.js';
import { createCliHarness, usageErrorLine, type CliHarness } from '../helpers/cli.js';
import { documentFixture, json, pkceAuthorizeUrl, type DocumentFixture } from '../helpers/client-metadata-document-server.js';
import { bearer } from '../helpers/oauth-requests.js';
import { backend } from '../helpers/test-database.js';
import { buildTestServer, type TestServer } from '../helpers/test-server.js';
import { ADMIN_PASSWORD, JSON_API, JSON_BODY } from '../integration/applications-support.js';

// Issue 29 items 9 and 10: metadata that makes a client look like someone else. A redirect URI whose authority
// hides its real host (userinfo, a "*", an IPv4 address in a form browsers rewrite) and a name holding Unicode
// format characters ("\u202Eelgoog" reads "google") are refused wherever a client's metadata is written: RFC 7591
// registration and RFC 7592 update, Client ID Metadata Documents, and for new values the admin's JSON API and CLI.
// What an application already stored keeps working.

const JSON_HEADERS = { 'content-type': 'application/json' };
const CALLBACK = 'https://rp.example/cb';

/** Redirect URIs that name another host than they seem to, and the words of the refusal. */
const SPOOFING_URIS: Array<[string, RegExp]> = [
  ['https://accounts.google.com@evil.example.com/cb', /user name or password before the host/],
  ['https://user:pass@rp.example/cb', /user name or password before the host/],
  ['https://*.rp.example/cb', /wildcard \(\*\)/],
  ['https://%65vil.example/cb', /domain name or an IP address/],
  ['http://127.1/cb', /host 127\.1 is an IPv4 address not written in plain dotted-decimal form \(browsers read it as 127\.0\.0\.1\)/],
  ['http://0x7f000001/cb', /host 0x7f000001 is an IPv4 address .*127\.0\.0\.1/],
  ['http://2130706433/cb', /host 2130706433 is an IPv4 address .*127\.0\.0\.1/],
  ['http://0177.0.0.1/cb', /host 0177\.0\.0\.1 is an IPv4 address .*127\.0\.0\.1/],
  ['http://127.0.0.1./cb', /host 127\.0\.0\.1\. is an IPv4 address .*127\.0\.0\.1/],
  ['http://[0:0:0:0:0:0:0:1]/cb', /not written as browsers read it \(browsers read it as \[::1\]\)/],
];

/** Names holding a format character (category Cf), and the character the refusal names. */
const SPOOFING_NAMES: Array<[string, string]> = [
  ['\u202Eelgoog', 'U+202E'],
  ['\u2066Bank\u2069', 'U+2066'],
  ['Goo\u200Bgle', 'U+200B'],
  ['\uFEFFPayPal', 'U+FEFF'],
  ['Bank\u200D', 'U+200D'],
  // A line break, and letters that draw as blank space, push the page's own words away; a stack of marks draws over them.
  ['Acme\u2028Notes', 'U+2028'],
  ['Acme Notes\u3164\u3164\u3164', 'U+3164'],
  ['Acme\u2800Notes', 'U+2800'],
  ['Acme N\u0301\u0302\u0303\u0304\u0305otes', 'U+0301 stacked'],
];

describe(`issue 29 items 9 and 10 at /oauth/register and the admin API (${backend})`, () => {
  let server: TestServer;
  beforeAll(async () => {
    const admin = { passwordHash: await argon2Hasher.hash(ADMIN_PASSWORD) };
    server = await buildTestServer({
      config: { registration: { policy: 'open', perAddressPerMinute: 0 }, defaultScopes: ['read'], admin },
    });
  });
  afterAll(() => server.close());

  const register = (payload: Record<string, unknown>) =>
    server.app.inject({
      method: 'POST',
      url: '/oauth/register',
      headers: JSON_HEADERS,
      payload: { redirect_uris: [CALLBACK], token_endpoint_auth_method: 'none', ...payload },
    });
  const applicationCount = async () => (await server.deps.stores.applicationAdmin.list()).length;
  const admin = (method: 'POST' | 'PATCH', url: string, payload: Record<string, unknown>) =>
    server.app.inject({ method, url, headers: JSON_BODY, payload });
  /** A row stored before issue 29's rules, as an older version accepted it. */
  const storedBefore = (uid: string, name: string, redirectUris: string[]) =>
    server.deps.stores.applicationAdmin.create({ uid, name, secret: null, redirectUris, scopes: ['read'], confidential: false });
  const expectRefused = (response: { statusCode: number; json(): Record<string, string> }, error: string, description: RegExp) => {
    expect(response.statusCode).toBe(400);
    expect(response.json().error).toBe(error);
    expect(response.json().error_description).toMatch(description);
  };

  it.each(SPOOFING_URIS)(
    'issue 29 item 9 (RFC 7591 section 3.2.2): registering the redirect URI %s is invalid_redirect_uri naming the problem',
    async (uri, problem) => {
      const before = await applicationCount();
      expectRefused(await register({ redirect_uris: [uri] }), 'invalid_redirect_uri', problem);
      expect(await applicationCount()).toBe(before);
    },
  );

  it('issue 29 item 9 (RFC 7592 section 2.2): an update to such a redirect URI is refused the same way, and the plain forms register', async () => {
    for (const plain of ['http://127.0.0.1/cb', 'http://[::1]/cb', 'https://rp.example/cb'])
      expect((await register({ redirect_uris: [plain] })).statusCode).toBe(201);
    const client = (await register({})).json();
    const update = await server.app.inject({
      method: 'PUT',
      url: `/oauth/register/${client.client_id}`,
      headers: { ...JSON_HEADERS, ...bearer(client.registration_access_token) },
      payload: { client_id: client.client_id, token_endpoint_auth_method: 'none', redirect_uris: ['http://0x7f000001/cb'] },
    });
    expectRefused(update, 'invalid_redirect_uri', /0x7f000001 is an IPv4 address/);
    expect((await server.deps.stores.applications.findByUid(client.client_id))!.redirectUris).toEqual([CALLBACK]);
  });

  it('issue 29 item 9 (RFC 6749 section 3.1.2): the admin JSON API refuses such a new redirect URI; an application that already has one keeps working at /oauth/authorize and stays editable', async () => {
    const created = await admin('POST', '/oauth/applications', {
      name: 'Spoof',
      redirect_uri: 'https://accounts.google.com@evil.example.com/cb',
      confidential: false,
    });
    expect(created.statusCode).toBe(422);
    expect(created.json().errors.join(' ')).toMatch(/user name or password before the host/);

    const old = await storedBefore('stored-before-issue-29', 'Stored before', ['https://user@legacy.example/cb']);
    const authorize = await server.app.inject({
      method: 'GET',
      url: pkceAuthorizeUrl({ client_id: old.uid, redirect_uri: 'https://user@legacy.example/cb', scope: 'read' }),
    });
    // Not signed in: a verified request goes on to the login page (a refused one is an error page).
    expect(authorize.statusCode, authorize.body).toBe(302);
    const patch = (payload: Record<string, unknown>) => admin('PATCH', `/oauth/applications/${old.id}`, payload);
    expect((await patch({ name: 'Renamed' })).statusCode).toBe(200);
    const added = await patch({ redirect_uri: 'https://user@legacy.example/cb\nhttp://127.1/cb' });
    expect(added.statusCode).toBe(422);
    expect(added.json().errors.join(' ')).toMatch(/127\.1 is an IPv4 address/);
    const shown = await server.app.inject({ method: 'GET', url: `/oauth/applications/${old.id}`, headers: JSON_API });
    expect(shown.json()).toMatchObject({ name: 'Renamed', redirect_uri: 'https://user@legacy.example/cb' });
  });

  it.each(SPOOFING_NAMES)(
    'issue 29 item 10 (RFC 7591 section 3.2.2): client_name %j is invalid_client_metadata naming the field and the character',
    async (name, character) => {
      const before = await applicationCount();
      expectRefused(
        await register({ client_name: name }),
        'invalid_client_metadata',
        new RegExp(`^client_name .*\\(${character.replace('+', '\\+')}\\)`),
      );
      expect(await applicationCount()).toBe(before);
    },
  );

  it('a name that draws nothing (variation selectors, U+034F, U+17B4, U+180B: default-ignorable, not Cf) is blank, at registration and in the admin API', async () => {
    for (const name of ['\uFE0F\uFE0F', '\u034F', ' \u17B4\u17B5 ', '\u180B']) {
      expectRefused(
        await register({ client_name: name }),
        'invalid_client_metadata',
        /^client_name must not be blank or hold control characters\.$/,
      );
      const created = await server.app.inject({
        method: 'POST',
        url: '/oauth/applications',
        headers: JSON_BODY,
        payload: { name, redirect_uri: 'https://app.example.com/cb' },
      });
      expect(created.json()).toEqual({ errors: ["Name can't be blank"] });
    }
    // With something to see, such a character is only what it is: a name.
    expect((await register({ client_name: 'Notes \u2764\uFE0F' })).statusCode).toBe(201);
  });

  it('issue 29 item 10: names in scripts that combine marks (decomposed Vietnamese, Hebrew points) and in right-to-left scripts are taken', async () => {
    for (const name of [
      'Ti\u0065\u0302\u0301ng Vi\u0065\u0323\u0302t',
      '\u05E9\u05C1\u05B8\u05DC\u05D5\u05B9\u05DD',
      'Acme \u05D0\u05D1\u05D2 1.0',
    ]) {
      const response = await register({ client_name: name });
      expect(response.statusCode, response.body).toBe(201);
      expect(response.json().client_name).toBe(name);
    }
  });

  it('issue 29 item 10 (RFC 7591 section 2): software_id, software_version and contacts refuse format characters too; an update to such a name is refused', async () => {
    expectRefused(await register({ software_id: 'rp\u202Edesktop' }), 'invalid_client_metadata', /^software_id .*U\+202E/);
    expectRefused(await register({ software_version: '1.0\u2066' }), 'invalid_client_metadata', /^software_version .*U\+2066/);
    expectRefused(await register({ contacts: ['ops\u200B@rp.example'] }), 'invalid_client_metadata', /^contacts .*U\+200B/);
    const client = (await register({ client_name: 'Plain' })).json();
    const update = await server.app.inject({
      method: 'PUT',
      url: `/oauth/register/${client.client_id}`,
      headers: { ...JSON_HEADERS, ...bearer(client.registration_access_token) },
      payload: { client_id: client.client_id, token_endpoint_auth_method: 'none', redirect_uris: [CALLBACK], client_name: '\u202Eelgoog' },
    });
    expectRefused(update, 'invalid_client_metadata', /^client_name .*U\+202E/);
    expect((await server.deps.stores.applications.findByUid(client.client_id))!.name).toBe('Plain');
  });

  it('issue 29 item 10: the admin JSON API refuses a new name with a format character (the consent screen shows it alike); a stored one stays editable', async () => {
    const created = await admin('POST', '/oauth/applications', { name: 'Pay\u200BPal', redirect_uri: CALLBACK, confidential: false });
    expect(created.statusCode).toBe(422);
    expect(created.json()).toEqual({ errors: ['Name must not contain invisible formatting characters (U+200B)'] });
    const old = await storedBefore('named-before-issue-29', 'Old\u200BName', [CALLBACK]);
    const patched = await admin('PATCH', `/oauth/applications/${old.id}`, { redirect_uri: `${CALLBACK}\nhttps://rp.example/other` });
    expect(patched.statusCode, patched.body).toBe(200);
    const renamed = await admin('PATCH', `/oauth/applications/${old.id}`, { name: 'New\u200BName' });
    expect(renamed.json()).toEqual({ errors: ['Name must not contain invisible formatting characters (U+200B)'] });
  });

  // Registration refuses it (storable-text.ts); the admin API stored it as U+FFFD, a name other than the one sent (found
  // by the HTTP hardening audit).
  it('the admin JSON API refuses a name with an unpaired UTF-16 surrogate, as a NUL', async () => {
    for (const name of ['a\ud800b', 'a\udc00', 'a\u0000b']) {
      const created = await admin('POST', '/oauth/applications', { name, redirect_uri: CALLBACK, confidential: false });
      expect([created.statusCode, created.json()]).toEqual([422, { errors: ['Name is invalid'] }]);
    }
    expect(
      (await admin('POST', '/oauth/applications', { name: 'a\u{1F600}b', redirect_uri: CALLBACK, confidential: false })).statusCode,
    ).toBe(201);
  });
});

describe(`issue 29 item 9 in the CLI (${backend})`, { timeout: 120_000 }, () => {
  let cli: CliHarness;
  beforeAll(async () => {
    cli = await createCliHarness();
  });
  afterAll(() => cli.close());

  it('issue 29 item 9 (RFC 6749 section 3.1.2): apps create refuses a redirect URI with userinfo or a shorthand loopback address, exit 2', async () => {
    for (const [uri, problem] of [
      ['https://accounts.google.com@evil.example.com/cb', /user name or password before the host/],
      ['http://127.1/cb', /127\.1 is an IPv4 address/],
    ] as const) {
      const result = await cli.run(['apps', 'create', '--name', 'Spoof', '--redirect-uri', uri]);
      expect(usageErrorLine(result)).toMatch(problem);
    }
    expect(await cli.withDeps(async (deps) => (await deps.stores.applicationAdmin.list()).length)).toBe(0);
  });

  it('apps create and resources create refuse a control character in a name, and a redirect URI over 2000 characters; each fault of several URIs is said once, naming its URI (CLI audit)', async () => {
    const uri = 'https://app.example.com/cb';
    for (const [argv, problem] of [
      [['apps', 'create', '--name', 'a\u0007b', '--redirect-uri', uri], 'Name must not contain control characters'],
      [['apps', 'create', '--name', 'a\nb', '--redirect-uri', uri], 'Name must not contain control characters'],
      [
        ['resources', 'create', '--uri', 'https://api.example.com', '--scopes', 'read', '--name', 'a\u001bb'],
        'Name must not contain control characters',
      ],
      [
        ['apps', 'create', '--name', 'Long', '--redirect-uri', `https://app.example.com/${'a'.repeat(2000)}`],
        'Redirect URI is too long (maximum is 2000 characters)',
      ],
    ] as const) {
      expect(usageErrorLine(await cli.run([...argv]))).toContain(problem);
    }
    const words = usageErrorLine(await cli.run(['apps', 'create', '--name', 'Words', '--redirect-uri', 'not a uri']));
    // Split at its spaces into three URIs: each fault is said once, naming the URI it is about.
    expect(words.match(/must be an absolute URI/g)).toHaveLength(3);
    for (const part of ['not', 'a', 'uri']) expect(words).toContain(`${part}: Redirect URI must be an absolute URI.`);
    expect(await cli.withDeps(async (deps) => (await deps.stores.applicationAdmin.list()).length)).toBe(0);
  });
});

describe(`issue 29 items 9 and 10 in Client ID Metadata Documents (${backend})`, () => {
  let cimd: DocumentFixture;
  beforeAll(async () => {
    cimd = await documentFixture();
  });
  afterAll(async () => {
    await cimd?.close();
  });

  it('issue 29 item 9 (draft-ietf-oauth-client-id-metadata-document section 4.1): a document whose redirect URI hides another host is refused', async () => {
    cimd.documents.serve(
      '/userinfo.json',
      json(cimd.document('/userinfo.json', { redirect_uris: ['https://accounts.google.com@evil.example.com/cb'] })),
    );
    expect(await cimd.refusal(cimd.urlOf('/userinfo.json'))).toBe('redirect_uris: a redirect URI is not acceptable');
  });

  it('issue 29 item 10 (draft-ietf-oauth-client-id-metadata-document section 4.1): a document whose client_name holds a format character is refused, and the error page says why', async () => {
    cimd.documents.serve('/rtl.json', json(cimd.document('/rtl.json', { client_name: '\u202Eelgoog' })));
    const clientId = cimd.urlOf('/rtl.json');
    expect(await cimd.refusal(clientId)).toBe('client_name holds an invisible formatting character (U+202E)');
    const page = await cimd.server.app.inject({
      method: 'GET',
      url: pkceAuthorizeUrl({ client_id: clientId, redirect_uri: 'https://client.example.com/callback' }),
    });
    expect(page.headers.location).toBeUndefined();
    expect(page.body).toContain('client_name holds an invisible formatting character (U+202E)');
  });
});
