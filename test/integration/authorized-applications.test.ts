import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { AccessTokenRecord, ApplicationRecord } from '../../src/oauth/store.js';
import { sha256Hex } from '../../src/oauth/secrets.js';
import { listAuditEvents } from '../../src/oauth/audit/audit-trail.js';
import {
  createClient,
  createUser,
  csrfTokenIn,
  hiddenFields,
  liveToken,
  signedIn,
  userAgent,
  type UserAgent,
} from '../helpers/end-user.js';
import { backend } from '../helpers/test-database.js';
import { buildTestServer, FORM, form, type TestServer } from '../helpers/test-server.js';

const INDEX = '/oauth/authorized_applications';
const JSON_ACCEPT = { accept: 'application/json' };

describe(`/oauth/authorized_applications (${backend})`, () => {
  let server: TestServer;
  let agent: UserAgent;
  let aliceId: number;
  let bobId: number;

  beforeAll(async () => {
    server = await buildTestServer({ config: { refreshTokens: { expiresIn: 86_400 } } });
    aliceId = (await createUser(server.deps, 'alice')).id;
    bobId = (await createUser(server.deps, 'bob')).id;
    agent = await signedIn(server.app, 'alice');
  });
  afterAll(() => server.close());

  const token = (application: ApplicationRecord, ownerId: number, minutesAgo = 0, overrides: Partial<AccessTokenRecord> = {}) =>
    server.deps.stores.accessTokens.create({
      ...liveToken(application.id, ownerId, ['read'], new Date(server.deps.now().getTime() - minutesAgo * 60_000)),
      ...overrides,
    });
  const listed = async () =>
    ((await agent.request({ method: 'GET', url: INDEX, headers: JSON_ACCEPT })).json() as Array<{ name: string }>).map((a) => a.name);

  describe('index', () => {
    let amazing: ApplicationRecord;
    let pub: ApplicationRecord;
    let oldest: Date;
    beforeAll(async () => {
      amazing = (await createClient(server.deps, { name: 'Amazing Client App' })).application;
      pub = (await createClient(server.deps, { name: 'Public App', confidential: false })).application;
      const another = (await createClient(server.deps, { name: 'Another Client App' })).application;
      const revoked = (await createClient(server.deps, { name: 'Revoked App' })).application;
      const expired = (await createClient(server.deps, { name: 'Expired App' })).application;
      const refreshable = (await createClient(server.deps, { name: 'Refreshable App' })).application;
      oldest = (await token(amazing, aliceId, 90)).createdAt;
      await token(amazing, aliceId, 30);
      await token(pub, aliceId, 10);
      await token(another, bobId);
      await server.deps.stores.accessTokens.revoke((await token(revoked, aliceId)).id, server.deps.now());
      await token(expired, aliceId, 180); // 2 h lifetime, 3 h old, no refresh token
      await token(refreshable, aliceId, 180, { refreshToken: sha256Hex('refresh') }); // access expired, refresh usable
    });

    it("lists the applications holding the owner's live tokens (a usable refresh token counts), not others', revoked or dead ones", async () => {
      expect((await listed()).sort()).toEqual(['Amazing Client App', 'Public App', 'Refreshable App']);
    });

    it('HTML: a table with each application, when it was authorized (oldest live token), and a Revoke form per row', async () => {
      const page = await agent.request({ method: 'GET', url: INDEX });
      expect(page.statusCode).toBe(200);
      expect(page.headers['x-frame-options']).toBe('DENY');
      expect(page.headers['cache-control']).toBe('no-store');
      expect(page.body).toContain('<h1>Your authorized applications</h1>');
      expect(page.body).toContain('<th scope="col">Application</th><th scope="col">Authorized at</th>');
      const row = page.body.slice(page.body.indexOf(`id="application_${amazing.id}"`));
      const iso = oldest.toISOString();
      // The date in the page's language (English here, as the consent page writes it), the time in UTC; no longer the
      // ISO-like "2026-11-29 16:33:58 UTC" of every language (test/integration/account-dates.test.ts has the others).
      const day = `${oldest.getUTCDate()} ${oldest.toLocaleString('en', { month: 'long', timeZone: 'UTC' })} ${oldest.getUTCFullYear()}`;
      expect(row).toContain(`<time datetime="${iso}">${day} at ${iso.slice(11, 19)} UTC</time>`);
      expect(row).toContain(`<form method="post" action="/oauth/authorized_applications/${amazing.id}">`);
      expect(row).toContain('<input type="hidden" name="_method" value="delete">');
      expect(csrfTokenIn(row)).toBeTruthy();
    });

    it('JSON: 200 with id, name, created_at, and uid only for public applications (reference 14)', async () => {
      const response = await agent.request({ method: 'GET', url: INDEX, headers: JSON_ACCEPT });
      expect(response.statusCode).toBe(200);
      expect(response.headers['content-type']).toContain('application/json');
      const list = response.json() as Array<Record<string, unknown>>;
      expect(list.find((a) => a.name === 'Amazing Client App')).toEqual({
        id: amazing.id,
        name: 'Amazing Client App',
        created_at: amazing.createdAt.toISOString(),
      });
      expect(list.find((a) => a.name === 'Public App')).toEqual({
        id: pub.id,
        name: 'Public App',
        uid: pub.uid,
        created_at: pub.createdAt.toISOString(),
      });
    });
  });

  describe('destroy', () => {
    let app: ApplicationRecord;
    beforeEach(async () => {
      app = (await createClient(server.deps, { name: `Revocable ${Math.random()}` })).application;
    });

    const seed = async () => {
      const mine = await token(app, aliceId);
      const bobs = await token(app, bobId);
      const grant = await server.deps.stores.accessGrants.create({
        applicationId: app.id,
        resourceOwnerId: aliceId,
        token: sha256Hex(`code ${app.id}`),
        expiresIn: 600,
        redirectUri: 'https://client.example.com/callback',
        scopes: ['read'],
        createdAt: server.deps.now(),
        codeChallenge: null,
        codeChallengeMethod: null,
      });
      return { mine, bobs, grant };
    };
    const stateOf = async ({ mine, bobs, grant }: Awaited<ReturnType<typeof seed>>) => ({
      mine: (await server.deps.stores.accessTokens.findByToken(mine.token))!.revokedAt !== null,
      bobs: (await server.deps.stores.accessTokens.findByToken(bobs.token))!.revokedAt !== null,
      grant: (await server.deps.stores.accessGrants.findByToken(grant.token))!.revokedAt !== null,
    });

    it('the Revoke form (POST _method=delete) revokes all my tokens and grants for the application, not others\', and says "Application revoked."', async () => {
      const rows = await seed();
      const page = await agent.request({ method: 'GET', url: INDEX });
      const fields = hiddenFields(page.body.slice(page.body.indexOf(`id="application_${app.id}"`)), 0);
      const response = await agent.request({ method: 'POST', url: `${INDEX}/${app.id}`, headers: FORM, payload: form(fields) });
      expect(response.statusCode).toBe(302);
      expect(response.headers.location).toBe(INDEX);
      expect(await stateOf(rows)).toEqual({ mine: true, bobs: false, grant: true });
      const after = await agent.request({ method: 'GET', url: INDEX });
      expect(after.body).toContain('Application revoked.');
      expect(after.body).not.toContain(app.name);
      // The notice is shown once.
      expect((await agent.request({ method: 'GET', url: INDEX })).body).not.toContain('Application revoked.');
    });

    it('DELETE with Accept: application/json and X-CSRF-Token answers 204', async () => {
      const rows = await seed();
      const csrf = csrfTokenIn((await agent.request({ method: 'GET', url: INDEX })).body)!;
      const response = await agent.request({
        method: 'DELETE',
        url: `${INDEX}/${app.id}`,
        headers: { ...JSON_ACCEPT, 'x-csrf-token': csrf },
      });
      expect(response.statusCode).toBe(204);
      expect(await stateOf(rows)).toEqual({ mine: true, bobs: false, grant: true });
    });

    it('without a valid CSRF token nothing is revoked (403)', async () => {
      const rows = await seed();
      const forged = await agent.request({
        method: 'POST',
        url: `${INDEX}/${app.id}`,
        headers: FORM,
        payload: form({ _method: 'delete', _csrf: 'forged' }),
      });
      expect(forged.statusCode).toBe(403);
      const bare = await agent.request({ method: 'DELETE', url: `${INDEX}/${app.id}` });
      expect(bare.statusCode).toBe(403);
      expect(await stateOf(rows)).toEqual({ mine: false, bobs: false, grant: false });
    });

    it('an unknown id changes nothing; a malformed id is 404; a POST without _method=delete is 405', async () => {
      const revocations = async () => (await listAuditEvents(server.deps, { type: 'consent.revoked', limit: 100 })).length;
      const before = await revocations();
      const csrf = csrfTokenIn((await agent.request({ method: 'GET', url: INDEX })).body)!;
      const unknown = await agent.request({
        method: 'POST',
        url: `${INDEX}/999999`,
        headers: FORM,
        payload: form({ _method: 'delete', _csrf: csrf }),
      });
      expect(unknown.statusCode).toBe(302);
      // It says nothing was revoked, not "Application revoked.", and records nothing.
      const after = (await agent.request({ method: 'GET', url: INDEX })).body;
      expect(after).toContain('Nothing to revoke: that application holds no authorization of yours.');
      expect(after).not.toContain('Application revoked.');
      expect(await revocations()).toBe(before);
      const malformed = await agent.request({
        method: 'POST',
        url: `${INDEX}/abc`,
        headers: FORM,
        payload: form({ _method: 'delete', _csrf: csrf }),
      });
      expect(malformed.statusCode).toBe(404);
      const plain = await agent.request({ method: 'POST', url: `${INDEX}/${app.id}`, headers: FORM, payload: form({ _csrf: csrf }) });
      expect(plain.statusCode).toBe(405);
    });
  });

  it('application names are escaped', async () => {
    const xss = (await createClient(server.deps, { name: `<div id='xss'>XSS</div>` })).application;
    await token(xss, aliceId);
    const page = await agent.request({ method: 'GET', url: INDEX });
    expect(page.body).not.toContain("<div id='xss'>");
    expect(page.body).toContain('&lt;div id=&#39;xss&#39;&gt;XSS&lt;/div&gt;');
  });

  it('requires a login: GET goes to /login, DELETE gets 401', async () => {
    const anonymous = userAgent(server.app);
    const response = await anonymous.request({ method: 'GET', url: INDEX });
    expect(response.statusCode).toBe(302);
    expect(response.headers.location).toBe('/login');
    expect((await anonymous.request({ method: 'DELETE', url: `${INDEX}/1` })).statusCode).toBe(401);
  });

  it('an application that registered itself, which no admin approved, says so and where it sends the user back: two rows of one name are told apart', async () => {
    const carol = await createUser(server.deps, 'carol');
    const real = (await createClient(server.deps, { name: 'Acme Notes', redirectUri: 'https://notes.acme.example/cb' })).application;
    const fake = (await createClient(server.deps, { name: 'Acme Notes', redirectUri: 'https://evil.example/cb' })).application;
    await server.app.database.sql.query("UPDATE oauth_applications SET registered_by = 'dynamic' WHERE id = $1", [fake.id]);
    await token(real, carol.id);
    await token(fake, carol.id);
    const page = (await (await signedIn(server.app, 'carol')).request({ method: 'GET', url: INDEX })).body;
    const row = (id: number) => page.slice(page.indexOf(`id="application_${id}"`)).split('</tr>')[0]!;
    expect(row(fake.id)).toContain(
      'Acme Notes <span class="self-declared">(the name it gave itself)</span><br><span class="self-declared">Unreviewed; sends you back to evil.example</span>',
    );
    expect(row(real.id)).toContain('>Acme Notes</td>');
  });
});
