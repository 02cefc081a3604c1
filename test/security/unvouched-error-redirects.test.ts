import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { s256Challenge } from '../../src/oauth/authorization/pkce.js';
import { approveApplication } from '../../src/oauth/clients/applications.js';
import { authorizeUrl, createUser, heldErrorParameters, hiddenFields, locationParameters, signedIn } from '../helpers/end-user.js';
import { openIdServer } from '../helpers/openid.js';
import { backend } from '../helpers/test-database.js';
import { FORM, form, type TestServer } from '../helpers/test-server.js';

// RFC 9700 section 4.11.2: anyone may register a client (RFC 7591) with a redirect URI of their own, and an erroneous
// request of it (a bad scope, prompt=none without a session) sent every browser that followed a link to this server
// straight on to that URI: an open redirector on the issuer's domain. The error of a client no admin made or approved
// is now this server's page, naming where the answer goes, with the way on for the user to take.

const SECTION = 'RFC 9700 section 4.11.2';
const EVIL = 'https://evil.example/cb';
const CHALLENGE = { code_challenge: s256Challenge('v'.repeat(43)), code_challenge_method: 'S256' };

describe(`errors of a client nobody vouches for are not redirected automatically (${backend})`, () => {
  let server: TestServer;
  let clientId: string;
  beforeAll(async () => {
    server = await openIdServer({
      config: { defaultScopes: ['read'], registration: { policy: 'open', perAddressPerMinute: 0 }, rateLimit: { enabled: false } },
    });
    await createUser(server.deps, 'alice');
    const registered = await server.app.inject({
      method: 'POST',
      url: '/oauth/register',
      headers: { 'content-type': 'application/json' },
      payload: { redirect_uris: [EVIL], token_endpoint_auth_method: 'none', client_name: 'Acme Notes' },
    });
    expect(registered.statusCode, registered.body).toBe(201);
    clientId = registered.json().client_id;
  });
  afterAll(() => server.close());

  const authorize = (parameters: Record<string, string>) =>
    authorizeUrl({ client_id: clientId, redirect_uri: EVIL, response_type: 'code', state: 's', ...CHALLENGE, ...parameters });

  function expectHeld(response: LightMyRequestResponse, status: number): void {
    expect(response.statusCode, response.body).toBe(status);
    expect(response.headers.location).toBeUndefined();
    expect(response.headers['cache-control']).toBe('no-store');
    expect(response.body).toContain('<strong id="unreviewed-return-destination">evil.example</strong>');
  }

  it(`${SECTION}: a bad scope, with nobody signed in, is a page with a link on to the client, not a redirect`, async () => {
    const response = await server.app.inject({ method: 'GET', url: authorize({ scope: 'bogus' }) });
    expectHeld(response, 400);
    const parameters = heldErrorParameters(response);
    expect({ error: parameters.get('error'), state: parameters.get('state') }).toEqual({ error: 'invalid_scope', state: 's' });
    expect(response.body).toContain('href="https://evil.example/cb?error=invalid_scope');
  });

  it(`${SECTION}: prompt=none without a session, and a signed-in user's bad request, are held the same way`, async () => {
    const silent = await server.app.inject({ method: 'GET', url: authorize({ scope: 'read', prompt: 'none' }) });
    expectHeld(silent, 400);
    expect(heldErrorParameters(silent).get('error')).toBe('login_required');
    const alice = await signedIn(server.app, 'alice');
    const signedInBadScope = await alice.request({ method: 'GET', url: authorize({ scope: 'bogus' }) });
    expectHeld(signedInBadScope, 400);
  });

  it(`${SECTION}: response_mode=form_post gets a form the user submits, without the page's automatic submission`, async () => {
    const response = await server.app.inject({ method: 'GET', url: authorize({ scope: 'bogus', response_mode: 'form_post' }) });
    expectHeld(response, 400);
    expect(response.body).toContain('<form id="unreviewed-return-form" method="post" action="https://evil.example/cb">');
    expect(hiddenFields(response.body)).toMatchObject({ error: 'invalid_scope', state: 's' });
    expect(response.body).not.toContain('form-post.js');
  });

  it(`${SECTION}: the page is in the user's language`, async () => {
    const response = await server.app.inject({ method: 'GET', url: authorize({ scope: 'bogus', ui_locales: 'de' }) });
    expectHeld(response, 400);
    expect(response.body).toContain('Diese Antwort geht zurück zu <strong id="unreviewed-return-destination">evil.example</strong>.');
  });

  it(`${SECTION}: the user's own denial on the consent page, which named where the answer goes, is redirected`, async () => {
    const alice = await signedIn(server.app, 'alice');
    const consent = await alice.request({ method: 'GET', url: authorize({ scope: 'read' }) });
    expect(consent.statusCode, consent.body).toBe(200);
    const denied = await alice.request({
      method: 'POST',
      url: '/oauth/authorize',
      headers: FORM,
      payload: form(hiddenFields(consent.body, 1)),
    });
    expect(denied.statusCode).toBe(303);
    expect(locationParameters(denied).get('error')).toBe('access_denied');
    expect(String(denied.headers.location)).toMatch(/^https:\/\/evil\.example\/cb\?/);
  });

  it(`${SECTION}: once an admin approves the client, its errors go to it at once (RFC 6749 section 4.1.2.1)`, async () => {
    const application = (await server.deps.stores.applications.findByUid(clientId))!;
    await approveApplication(server.deps, application.id);
    const response = await server.app.inject({ method: 'GET', url: authorize({ scope: 'bogus' }) });
    expect(response.statusCode).toBe(302);
    expect(locationParameters(response).get('error')).toBe('invalid_scope');
  });
});
