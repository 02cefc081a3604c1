import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listAuditEvents } from '../../src/oauth/audit/audit-trail.js';
import type { OAuthDeps } from '../../src/oauth/deps.js';
import type { Database } from '../../src/storage/database.js';
import { identitiesOfUser, removeUserIdentity } from '../../src/oauth/users/user-identities.js';
import { identitySection } from '../../src/http/routes/account/account-identities.js';
import { createCliHarness, type CliHarness } from '../helpers/cli.js';
import { createUser, PASSWORD, signedIn, type UserAgent } from '../helpers/end-user.js';
import { storedPasskey } from '../helpers/second-factor.js';
import { backend } from '../helpers/test-database.js';
import { FORM, form, type TestServer } from '../helpers/test-server.js';
import { AdminSession, buildAdminServer, textOf } from './applications-support.js';

// Issue 37: a user's sign-in identities (rows of oauth_federated_subjects), listed and removed on the account page,
// the admin's Users page and the CLI. The sign-in that writes the rows is another part of the issue: the rows are
// inserted here as a sign-in would leave them.

const GOOGLE = 'https://accounts.google.com';
const ENTRA = 'https://login.microsoftonline.com/9188040d-6c67-4c5b-b112-36a304b66dad/v2.0';

interface Link {
  issuer: string;
  subject: string;
  providerId?: string | null;
  email?: string | null;
  lastSignedInAt?: string | null;
}

const LINK = `INSERT INTO oauth_federated_subjects (issuer, subject, user_id, created_at, provider_id, email, last_signed_in_at)
  VALUES ($1, $2, $3, '2026-11-01T10:00:00.000Z', $4, $5, $6)`;

/** Links an upstream identity to the user as a sign-in would, on this database. */
const linker =
  (database: Database) =>
  (userId: number, { issuer, subject, providerId = null, email = null, lastSignedInAt = null }: Link) =>
    database.sql.query(LINK, [issuer, subject, userId, providerId, email, lastSignedInAt]);

const identityRows = (deps: OAuthDeps, userId: number) => deps.stores.userIdentities.listOfUser(userId);

describe(`sign-in identities on /account and the admin's Users page (${backend})`, () => {
  let server: TestServer;
  let link: ReturnType<typeof linker>;
  beforeAll(async () => {
    server = await buildAdminServer();
    link = linker(server.testDatabase.database);
  });
  afterAll(() => server.close());

  const account = (browser: UserAgent) => browser.request({ method: 'GET', url: '/account' });
  const remove = (browser: UserAgent, fields: Record<string, string>) => browser.post('/account/identities/remove', fields, '/account');

  it("GET /account lists the user's identities: provider (the issuer when no provider names it), upstream email, linked since, last used", async () => {
    const user = await createUser(server.deps, 'lister');
    const other = await createUser(server.deps, 'someone-else');
    await link(user.id, {
      issuer: GOOGLE,
      subject: '1084',
      providerId: 'google',
      email: 'lister@gmail.com',
      lastSignedInAt: '2026-11-20T08:30:00.000Z',
    });
    await link(user.id, { issuer: ENTRA, subject: 'AAAAAAAAAAAAAAAAAAAAAIkzqFVrSaSaFHy782bbtaQ' });
    await link(other.id, { issuer: GOOGLE, subject: 'not-yours', email: 'other@gmail.com' });

    const page = await account(await signedIn(server.app, 'lister'));
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('<h2 id="identities_heading">Sign-in identities</h2>');
    expect(page.body.match(/<tr id="identity_\d+">/g)).toHaveLength(2);
    expect(page.body).toMatch(
      /<tr id="identity_1">\s*<td[^>]*><span title="https:\/\/accounts.google.com">https:\/\/accounts.google.com<\/span><\/td>\s*<td[^>]*>lister@gmail.com<\/td>/,
    );
    // The account page's dates are in its language (as the consent page's), no longer "2026-11-01 10:00:00 UTC".
    expect(page.body).toContain('<time datetime="2026-11-01T10:00:00.000Z">1 November 2026 at 10:00:00 UTC</time>');
    expect(page.body).toContain('<time datetime="2026-11-20T08:30:00.000Z">20 November 2026 at 08:30:00 UTC</time>');
    expect(page.body).toMatch(/<tr id="identity_2">[\s\S]*?<td[^>]*>not given<\/td>[\s\S]*?<td[^>]*>never<\/td>/);
    expect(page.body).toContain('aria-label="Remove the identity lister@gmail.com at https://accounts.google.com"');
    expect(page.body).toContain('Your only identity can be removed once you have a passkey, or with your password if you have one');
    expect(page.body).not.toContain('not-yours');
  });

  it("names each identity by its provider's display name in config identityProviders, else by its issuer", async () => {
    const user = await createUser(server.deps, 'named');
    await link(user.id, { issuer: GOOGLE, subject: 'g-1', providerId: 'google' });
    await link(user.id, { issuer: ENTRA, subject: 'e-1', providerId: 'gone' });
    const config = { ...server.deps.config, identityProviders: [{ id: 'google', name: 'Google' }] };
    const identities = await identitiesOfUser({ ...server.deps, config }, user.id);
    expect(identities.map(({ providerName }) => providerName)).toEqual(['Google', ENTRA]);
  });

  it('a user with none sees that no other service signs them in; without a provider configured, no such section', async () => {
    const user = await createUser(server.deps, 'local-only');
    // This server has no identityProviders: the section has nothing to offer (found by the account pages' audit).
    expect((await account(await signedIn(server.app, 'local-only'))).body).not.toContain('id="identities_heading"');
    const config = { ...server.deps.config, identityProviders: [{ id: 'google', name: 'Google' }] } as typeof server.deps.config;
    // The language names identities only: there are none.
    const section = await identitySection({ ...server.deps, config }, user.id, undefined as never);
    expect(section).toMatchObject({ shown: true, list: [] });
  });

  it("Remove: CSRF required; another user's identity is 404; the user's own goes, audited as the user", async () => {
    const user = await createUser(server.deps, 'remover');
    const other = await createUser(server.deps, 'bystander');
    await link(user.id, { issuer: GOOGLE, subject: 'r-1', providerId: 'google' });
    await link(user.id, { issuer: ENTRA, subject: 'r-2' });
    await link(other.id, { issuer: GOOGLE, subject: 'b-1' });
    const browser = await signedIn(server.app, 'remover');

    const forged = await browser.request({
      method: 'POST',
      url: '/account/identities/remove',
      headers: FORM,
      payload: form({ issuer: GOOGLE, subject: 'r-1' }),
    });
    expect(forged.statusCode).toBe(403);
    const theirs = await remove(browser, { issuer: GOOGLE, subject: 'b-1' });
    expect(theirs.statusCode).toBe(404);
    expect(theirs.body).toContain('No such identity.');
    expect(await identityRows(server.deps, other.id)).toHaveLength(1);

    const removed = await remove(browser, { issuer: GOOGLE, subject: 'r-1' });
    expect(removed.statusCode).toBe(303);
    expect(removed.headers.location).toBe('/account');
    expect((await account(browser)).body).toContain('The identity at https://accounts.google.com has been removed');
    expect((await identityRows(server.deps, user.id)).map(({ subject }) => subject)).toEqual(['r-2']);
    const events = await listAuditEvents(server.deps, { type: 'user.identity.removed', userId: user.id, limit: 5 });
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      actor: `user:${user.id}`,
      ip: '127.0.0.1',
      subjectType: 'user',
      subjectId: String(user.id),
      details: { issuer: GOOGLE, subject: 'r-1', provider: 'google' },
    });
    expect((await remove(browser, { issuer: GOOGLE, subject: 'r-1' })).statusCode).toBe(404);
  });

  it('the only identity of a user without a passkey stays (409, saying why) unless they type their password; once they have a passkey it can go', async () => {
    const user = await createUser(server.deps, 'just-in-time');
    await link(user.id, { issuer: GOOGLE, subject: 'only' });
    const browser = await signedIn(server.app, 'just-in-time');
    // The form asks for the password only when it is needed.
    expect((await account(browser)).body).toContain('<label for="identity_1_password">Your password</label>');

    const refused = await remove(browser, { issuer: GOOGLE, subject: 'only' });
    expect(refused.statusCode).toBe(409);
    expect(textOf(refused.body, 'identities_error')).toBe(
      'This identity is your only way to sign in: add a passkey, or enter your password, to remove it.',
    );
    const wrong = await remove(browser, { issuer: GOOGLE, subject: 'only', password: 'not the password' });
    expect(wrong.statusCode).toBe(401);
    expect(textOf(wrong.body, 'identities_error')).toBe('The password is not correct: the identity was not removed.');
    expect(wrong.body).toContain('id="identities_error" tabindex="-1" autofocus>');
    expect(await identityRows(server.deps, user.id)).toHaveLength(1);
    expect(await listAuditEvents(server.deps, { type: 'user.identity.removed', userId: user.id, limit: 5 })).toEqual([]);

    expect((await remove(browser, { issuer: GOOGLE, subject: 'only', password: PASSWORD })).statusCode).toBe(303);
    expect(await identityRows(server.deps, user.id)).toEqual([]);

    const keyed = await createUser(server.deps, 'with-passkey');
    await link(keyed.id, { issuer: GOOGLE, subject: 'keyed' });
    await server.deps.stores.passkeys.create(storedPasskey(keyed.id), new Date());
    const keyedBrowser = await signedIn(server.app, 'with-passkey');
    expect((await account(keyedBrowser)).body).not.toContain('name="password" maxlength="1024" autocomplete="current-password"');
    expect((await remove(keyedBrowser, { issuer: GOOGLE, subject: 'keyed' })).statusCode).toBe(303);
    expect(await identityRows(server.deps, keyed.id)).toEqual([]);
  });

  it('two removals at once of the last two identities of a user without a passkey: one goes, the other is refused', async () => {
    const user = await createUser(server.deps, 'two-tabs');
    await link(user.id, { issuer: GOOGLE, subject: 'tab-1' });
    await link(user.id, { issuer: ENTRA, subject: 'tab-2' });
    const by = { actor: `user:${user.id}`, ip: '127.0.0.1' };
    const removals = await Promise.all(
      [GOOGLE, ENTRA].map((issuer, index) =>
        removeUserIdentity(server.deps, by, user.id, { issuer, subject: `tab-${index + 1}` }, { keepSignIn: true }),
      ),
    );
    expect(removals.map(({ outcome }) => outcome).sort()).toEqual(['last_sign_in', 'removed']);
    expect(await identityRows(server.deps, user.id)).toHaveLength(1);
  });

  it('a form without the identity, or with a control character in it, is a 400 page, never a 500', async () => {
    await createUser(server.deps, 'malformed');
    const browser = await signedIn(server.app, 'malformed');
    const malformed: Record<string, string>[] = [
      { issuer: GOOGLE },
      { issuer: '', subject: 'x' },
      { issuer: GOOGLE, subject: 'a\u0000b' },
      { issuer: 'x'.repeat(2049), subject: 'x' },
    ];
    for (const fields of malformed) {
      const response = await remove(browser, fields);
      expect(response.statusCode, JSON.stringify(fields).slice(0, 80)).toBe(400);
      expect(response.headers['content-type']).toContain('text/html');
    }
  });

  it("the admin's Users page lists the identities; Remove asks first, needs the CSRF token, may remove the last one, and is audited as the admin", async () => {
    const user = await createUser(server.deps, 'administered');
    await link(user.id, { issuer: GOOGLE, subject: 'a-1', providerId: 'google', email: 'adm@gmail.com' });
    await link(user.id, { issuer: ENTRA, subject: 'a&2' });
    const admin = new AdminSession(server.app);
    const show = (await admin.get(`/oauth/users/${user.id}`)).body;
    expect(show).toMatch(/<td><code>a-1<\/code><\/td>\s*<td[^>]*>adm@gmail.com<\/td>/);
    const confirmHref = `/oauth/users/${user.id}/remove_identity?issuer=${encodeURIComponent(ENTRA)}&subject=a%262`;
    expect(show).toContain(`href="${confirmHref.replace(/&/g, '&amp;')}"`);

    const confirm = await admin.get(confirmHref);
    expect(confirm.statusCode).toBe(200);
    expect(confirm.body).toContain('Remove the identity <code>a&amp;2</code> at <strong>' + ENTRA + '</strong>');
    expect(confirm.body).not.toContain('id="last_identity"');
    const forged = await server.app.inject({
      method: 'POST',
      url: `/oauth/users/${user.id}/remove_identity`,
      headers: { authorization: `Basic ${Buffer.from('admin:correct horse battery staple').toString('base64')}`, ...FORM },
      payload: form({ issuer: ENTRA, subject: 'a&2' }),
    });
    expect(forged.statusCode).toBe(403);
    expect(await identityRows(server.deps, user.id)).toHaveLength(2);

    const removed = await admin.submit(`/oauth/users/${user.id}/remove_identity`, { issuer: ENTRA, subject: 'a&2' });
    expect(removed.statusCode).toBe(302);
    expect((await admin.get(`/oauth/users/${user.id}`)).body).toContain(`Identity removed: ${ENTRA} no longer signs the user in.`);

    // The last one: the page says what is left, and the admin may remove it (no passkey needed).
    const last = await admin.get(`/oauth/users/${user.id}/remove_identity?issuer=${encodeURIComponent(GOOGLE)}&subject=a-1`);
    expect(textOf(last.body, 'last_identity')).toContain('they then sign in only with a password you set (Reset password) or a passkey');
    expect((await admin.submit(`/oauth/users/${user.id}/remove_identity`, { issuer: GOOGLE, subject: 'a-1' })).statusCode).toBe(302);
    expect(await identityRows(server.deps, user.id)).toEqual([]);
    expect((await admin.get(`/oauth/users/${user.id}`)).body).toContain('No upstream identity signs this user in.');
    const events = await listAuditEvents(server.deps, { type: 'user.identity.removed', userId: user.id, limit: 5 });
    expect(events.map(({ actor, details }) => [actor, (details as { subject: string }).subject])).toEqual([
      ['admin', 'a-1'],
      ['admin', 'a&2'],
    ]);
  });

  it('the admin pages answer an unknown identity or user with 404 and a missing key with 400', async () => {
    const user = await createUser(server.deps, 'unknown-identity');
    const admin = new AdminSession(server.app);
    const missing = await admin.get(`/oauth/users/${user.id}/remove_identity?issuer=${encodeURIComponent(GOOGLE)}&subject=nope`);
    expect(missing.statusCode).toBe(404);
    expect(missing.body).toContain('This user has no such identity.');
    expect((await admin.submit(`/oauth/users/${user.id}/remove_identity`, { issuer: GOOGLE, subject: 'nope' })).statusCode).toBe(404);
    expect((await admin.submit('/oauth/users/999999/remove_identity', { issuer: GOOGLE, subject: 'nope' })).statusCode).toBe(404);
    expect((await admin.submit(`/oauth/users/${user.id}/remove_identity`, { issuer: GOOGLE, subject: 'a\u0000b' })).statusCode).toBe(404);
    expect((await admin.get(`/oauth/users/${user.id}/remove_identity?issuer=x`)).statusCode).toBe(400);
  });
});

describe(`oauth-service users identities and remove-identity (${backend})`, { timeout: 120_000 }, () => {
  let cli: CliHarness;
  let userId: number;
  beforeAll(async () => {
    cli = await createCliHarness();
    userId = await cli.withDeps(async (deps, database) => {
      const user = await deps.stores.userAdmin.create({ username: 'carol', passwordHash: 'x' });
      const link = linker(database);
      await link(user.id, {
        issuer: GOOGLE,
        subject: 'c-1',
        providerId: 'google',
        email: 'carol@gmail.com',
        lastSignedInAt: '2026-11-20T08:30:00.000Z',
      });
      await link(user.id, { issuer: ENTRA, subject: 'c-2' });
      return user.id;
    });
  });
  afterAll(() => cli.close());

  it('identities lists them as a table and as JSON', async () => {
    const table = await cli.run(['users', 'identities', 'carol']);
    expect(table.code, table.stderr).toBe(0);
    expect(table.stdout.split('\n')[0]).toMatch(/^PROVIDER\s+ISSUER\s+SUBJECT\s+EMAIL\s+LINKED AT\s+LAST SIGN-IN$/);
    expect(table.stdout).toMatch(/c-1\s+carol@gmail.com\s+2026-11-01T10:00:00.000Z\s+2026-11-20T08:30:00.000Z/);
    expect(table.stdout).toMatch(/c-2\s+2026-11-01T10:00:00.000Z\s+never/);
    const json = await cli.run(['users', 'identities', 'carol', '--json']);
    expect(JSON.parse((await cli.run(['users', 'show', 'carol', '--json'])).stdout).identities).toEqual(JSON.parse(json.stdout));
    expect(JSON.parse(json.stdout)).toEqual([
      {
        issuer: GOOGLE,
        subject: 'c-1',
        provider_id: 'google',
        provider: GOOGLE,
        email: 'carol@gmail.com',
        created_at: '2026-11-01T10:00:00.000Z',
        last_signed_in_at: '2026-11-20T08:30:00.000Z',
      },
      {
        issuer: ENTRA,
        subject: 'c-2',
        provider_id: null,
        provider: ENTRA,
        email: null,
        created_at: '2026-11-01T10:00:00.000Z',
        last_signed_in_at: null,
      },
    ]);
  });

  it('remove-identity removes one, the last one too, audited as the CLI; an unknown identity or a missing option is a usage error', async () => {
    const missing = await cli.run(['users', 'remove-identity', 'carol', '--issuer', GOOGLE]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('missing required option --subject');
    const unknown = await cli.run(['users', 'remove-identity', 'carol', '--issuer', GOOGLE, '--subject', 'nope']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain(`carol has no identity with issuer ${GOOGLE} and subject nope`);

    const removed = await cli.run(['users', 'remove-identity', 'carol', '--issuer', ENTRA, '--subject', 'c-2']);
    expect(removed.code, removed.stderr).toBe(0);
    expect(removed.stdout).toBe(`removed the identity c-2 at ${ENTRA} from carol\n`);
    const last = await cli.run(['users', 'remove-identity', 'carol', '--issuer', GOOGLE, '--subject', 'c-1', '--json']);
    expect(JSON.parse(last.stdout)).toMatchObject({
      username: 'carol',
      identity_removed: { issuer: GOOGLE, subject: 'c-1', provider_id: 'google' },
    });
    expect((await cli.run(['users', 'identities', 'carol'])).stdout).toBe('carol has no sign-in identity\n');
    const events = await cli.withDeps((deps) => listAuditEvents(deps, { userId, type: 'user.identity.removed', limit: 10 }));
    expect(events.map(({ actor, details }) => [actor, (details as { subject: string }).subject])).toEqual([
      ['cli', 'c-1'],
      ['cli', 'c-2'],
    ]);
  });
});
