import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { s256Challenge } from '../../src/oauth/authorization/pkce.js';
import type { ApplicationRecord } from '../../src/oauth/store.js';
import { authorizeUrl, createClient, createUser, signedIn, type UserAgent } from '../helpers/end-user.js';
import { backend } from '../helpers/test-database.js';
import { buildTestServer, type TestServer } from '../helpers/test-server.js';
import { createFromMetadataDocument, createSelfRegistered } from './applications-self-registered-support.js';

// Issue 19: GET /oauth/authorize's consent page for a client nobody vetted says so, names where it came from and
// where the user goes back to, escapes what the client supplied and links only its https URIs. The same checks
// in Chromium, with scripts watching, are test/browser/consent-self-registered.test.ts.

const CALLBACK = 'https://client.example.com/callback';
const PKCE = { code_challenge: s256Challenge('a45a9fea-0676-477e-95b1-a40f72ac3cfb-0123456789'), code_challenge_method: 'S256' };
const NOTICE = 'This application registered itself';

describe(`consent page for self-registered clients (${backend})`, () => {
  let server: TestServer;
  let alice: UserAgent;
  let operator: string;
  const consent = async (application: ApplicationRecord, redirectUri = CALLBACK) => {
    const response = await alice.request({
      method: 'GET',
      url: authorizeUrl({ client_id: application.uid, redirect_uri: redirectUri, response_type: 'code', scope: 'read', ...PKCE }),
    });
    expect(response.statusCode).toBe(200);
    return response.body;
  };

  beforeAll(async () => {
    server = await buildTestServer();
    await createUser(server.deps, 'alice');
    alice = await signedIn(server.app, 'alice');
    operator = `the operator of ${new URL(server.deps.config.baseUrl).host}`;
  });
  afterAll(() => server.close());

  it('a dynamically registered client: the notice, the date, the return host, the name marked self-declared', async () => {
    const client = await createSelfRegistered(server.deps, { name: 'Totally Legit Bank' });
    const html = await consent(client);
    expect(html).toContain(`This application registered itself; ${operator} has not reviewed it.`);
    expect(html).toMatch(/It was registered at this server on \d{1,2} [A-Z][a-z]+ \d{4}\./);
    expect(html).toContain('<strong id="self-registered-return">client.example.com</strong>');
    expect(html).toContain('Totally Legit Bank</strong> <span class="self-declared">(the name it gave itself)</span>');
  });

  it('a Client ID Metadata Document client: where its details are published', async () => {
    const html = await consent(await createFromMetadataDocument(server.deps));
    expect(html).toContain(NOTICE);
    expect(html).toContain('Its details are published at client.example/meta.json, not by this server.');
  });

  it('client-supplied text is escaped, and only https URIs become links (rel noopener noreferrer nofollow), no logo', async () => {
    const client = await createSelfRegistered(server.deps, {
      name: '<script>window.__xss=1</script>"><img src=x onerror=alert(1)>',
      clientUri: 'javascript:alert(document.cookie)',
      policyUri: 'http://client.example.com/privacy',
      tosUri: 'https://client.example.com/tos?a="><script>alert(1)</script>',
      logoUri: 'https://client.example.com/logo.png',
    });
    const html = await consent(client);
    expect(html).toContain('&lt;script&gt;window.__xss=1&lt;/script&gt;&quot;&gt;&lt;img src=x onerror=alert(1)&gt;');
    expect(html).not.toContain('<script>');
    expect(html).not.toContain('<img');
    expect(html).not.toMatch(/href="(javascript|http):/i);
    expect(html).not.toContain('Website');
    expect(html).not.toContain('Privacy policy');
    const tos = /<a href="([^"]*)" rel="noopener noreferrer nofollow">Terms of service<\/a>/.exec(html);
    expect(tos?.[1]).toBe('https://client.example.com/tos?a=%22%3E%3Cscript%3Ealert(1)%3C/script%3E');
  });

  it('a loopback redirect goes back to "an application on this device", a private-use scheme to the app of that scheme', async () => {
    const client = await createSelfRegistered(server.deps, {
      redirectUris: ['http://127.0.0.1/callback', 'com.example.app:/callback'],
      applicationType: 'native',
    });
    expect(await consent(client, 'http://127.0.0.1:53124/callback')).toContain(
      '<strong id="self-registered-return">an application on this device</strong>',
    );
    expect(await consent(client, 'com.example.app:/callback')).toContain(
      '<strong id="self-registered-return">the application that opens com.example.app: links</strong>',
    );
  });

  it('no notice for an admin-made client, nor for a self-registered client an admin approved', async () => {
    const admin = (await createClient(server.deps, { redirectUri: CALLBACK, scopes: 'read' })).application;
    expect(await consent(admin)).not.toContain(NOTICE);
    const approved = await createSelfRegistered(server.deps, { approvedAt: new Date() });
    const html = await consent(approved);
    expect(html).not.toContain(NOTICE);
    expect(html).not.toContain('self-declared');
  });
});
