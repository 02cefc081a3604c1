import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backend } from '../helpers/test-database.js';
import type { TestServer } from '../helpers/test-server.js';
import { AdminSession, buildAdminServer, JSON_API } from './applications-support.js';

const JSON_BODY = { ...JSON_API, 'content-type': 'application/json' };
const FORBIDDEN = 'Redirect URI is forbidden by the server.';

// One rule for the admin form and the admin JSON API (src/oauth/authorization/redirect-uri.ts): https, loopback http, a native
// app's private-use scheme (RFC 8252 section 7.1); anything else is refused with the same message in both.
describe(`/oauth/applications: the schemes of redirect URIs (${backend})`, () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await buildAdminServer({ forceSslInRedirectUri: false });
  });
  afterAll(() => server.close());

  it.each(['file:///etc/passwd', 'javascript://%0aalert(1)', 'ftp://files.example.com/cb', 'myapp://callback'])(
    'POST and PATCH in JSON with %s: 422 with the message the form shows beside the field, and nothing stored',
    async (uri) => {
      const created = await server.app.inject({
        method: 'POST',
        url: '/oauth/applications',
        headers: JSON_BODY,
        payload: { name: 'Native', redirect_uri: uri },
      });
      expect(created.statusCode).toBe(422);
      expect(created.json()).toEqual({ errors: [FORBIDDEN] });

      const admin = new AdminSession(server.app);
      const page = await admin.submit('/oauth/applications', { name: 'Native', redirect_uri: uri, confidential: '0' });
      expect(page.statusCode).toBe(422);
      expect(page.body).toContain('<p class="field-error" id="application_redirect_uri_errors">Is forbidden by the server.</p>');

      const valid = await server.app.inject({
        method: 'POST',
        url: '/oauth/applications',
        headers: JSON_BODY,
        payload: { name: 'Native', redirect_uri: 'com.example.app:/cb' },
      });
      expect(valid.statusCode).toBe(201);
      const { id } = valid.json() as { id: number };
      const patched = await server.app.inject({
        method: 'PATCH',
        url: `/oauth/applications/${id}`,
        headers: JSON_BODY,
        payload: { redirect_uri: [uri, 'com.example.app:/cb'] },
      });
      expect(patched.statusCode).toBe(422);
      // Of a list, the message names the URI at fault.
      expect(patched.json()).toEqual({ errors: [`${uri}: ${FORBIDDEN}`] });
      expect((await server.deps.stores.applications.findById(id))!.redirectUris).toEqual(['com.example.app:/cb']);
    },
  );

  it('a private-use scheme, https and loopback http are accepted in JSON and in the form', async () => {
    const uris = 'com.example.app:/oauth2redirect\ncom.example.app://cb\nhttps://app.example.com/cb\nhttp://127.0.0.1:8000/cb';
    const json = await server.app.inject({
      method: 'POST',
      url: '/oauth/applications',
      headers: JSON_BODY,
      payload: { name: 'Native', redirect_uri: uris, confidential: false },
    });
    expect(json.statusCode).toBe(201);
    expect(json.json()).toMatchObject({ redirect_uri: uris });
    const page = await new AdminSession(server.app).submit('/oauth/applications', {
      name: 'Native',
      redirect_uri: uris,
      confidential: '0',
    });
    expect(page.statusCode).toBe(302);
  });
});
