import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { IdentityProviderConfig } from '../../src/config/identity-providers-schema.js';
import { DEFAULT_AFTER_LOGIN } from '../../src/http/hooks/authenticate-resource-owner.js';
import type { UserRecord } from '../../src/oauth/store.js';
import { PASSWORD } from '../helpers/end-user.js';
import { listeningTestServer } from '../helpers/listening-server.js';
import type { TestServer } from '../helpers/test-server.js';
import { csrfOf, fetchBrowser, formAction, signInAtUpstream } from '../helpers/upstream-browser.js';
import { upstreamForProduct, type UpstreamProvider } from '../helpers/upstream-provider.js';

// Issue 37 item 3 and the audit trail (docs/operations.md "Audit trail": every security event is a row). Several local
// users holding the upstream's verified email: nobody is linked on the upstream's word and nobody is created, even with
// linkByVerifiedEmail; the user names and proves one of those accounts at /login/upstream/link. Each upstream sign-in,
// user made just in time, identity linked and wrong password at the link page is an audit row with the provider id.

const ACCOUNTS = {
  'twin-1': { email: 'twin@corp.example', email_verified: true, preferred_username: 'twin.up', name: 'Twin Upstream' },
  'jit-1': { email: 'jit@corp.example', email_verified: true, preferred_username: 'jit', name: 'Just In Time' },
  'vera-1': { email: 'vera@corp.example', email_verified: true, preferred_username: 'vera.up', name: 'Vera Upstream' },
};

describe('upstream sign-in: several holders of one email, and the audit trail', () => {
  let upstream: UpstreamProvider;
  let server: TestServer & { baseUrl: string };
  const sql = () => server.testDatabase.database.sql;
  const usersCount = async () => Number((await sql().query<{ n: string }>('SELECT count(*) AS n FROM users'))[0]!.n);
  const identitiesOf = (userId: number) =>
    sql().query<{ subject: string }>('SELECT subject FROM oauth_federated_subjects WHERE user_id = $1', [userId]);
  const eventsOf = async (type: string) =>
    (
      await sql().query<{ actor: string; outcome: string; details: string | null }>(
        'SELECT actor, outcome, details FROM oauth_audit_events WHERE type = $1 ORDER BY id',
        [type],
      )
    ).map((row) => ({ ...row, details: row.details === null ? null : (JSON.parse(row.details) as Record<string, unknown>) }));
  const localUser = (username: string, email: string): Promise<UserRecord> =>
    server.deps.passwords
      .hash(PASSWORD)
      .then((passwordHash) => server.deps.stores.userAdmin.create({ username, passwordHash, email, emailVerified: true, name: username }));

  beforeAll(async () => {
    let port: number;
    ({ upstream, port } = await upstreamForProduct(['corp', 'corp-link'], ACCOUNTS));
    const provider = { issuer: upstream.issuer, clientId: 'oauth-service' };
    server = await listeningTestServer(
      {
        identityProviders: [
          { ...provider, id: 'corp', name: 'Corp SSO' },
          { ...provider, id: 'corp-link', name: 'Corp SSO (linking)', linkByVerifiedEmail: true },
        ] as IdentityProviderConfig[],
      },
      { port, env: { IDP_CORP_CLIENT_SECRET: 'upstream-secret', IDP_CORP_LINK_CLIENT_SECRET: 'upstream-secret' } },
    );
  });
  afterAll(async () => {
    await server?.close();
    await upstream?.stop();
  });

  async function signInThrough(id: string, account: string) {
    const browser = fetchBrowser();
    const page = await signInAtUpstream(browser, await browser.open(`${server.baseUrl}/login/upstream/${id}`), account);
    return { browser, page };
  }

  it('linkByVerifiedEmail with two local holders of the verified email: the link page, no user made; one account proven, linked to it', async () => {
    await localUser('twin-a', 'twin@corp.example');
    const twinB = await localUser('twin-b', 'TWIN@corp.example');
    const before = await usersCount();
    const { browser, page } = await signInThrough('corp-link', 'twin-1');
    expect(page.url).toBe(`${server.baseUrl}/login/upstream/link`);
    expect(await usersCount()).toBe(before);
    expect(page.body).toMatch(
      /<input type="text" id="username" name="username" value="" maxlength="255" autocomplete="username" required>/,
    );
    const wrong = await browser.submit(formAction(page), { _csrf: csrfOf(page), username: 'twin-b', password: 'not it' });
    expect(wrong.status).toBe(401);
    // Both fields point at the message; the user name is kept, so the password has the focus (accessibility audit c).
    expect(wrong.body).toContain(
      '<input type="text" id="username" name="username" value="twin-b" maxlength="255" autocomplete="username" required aria-invalid="true" aria-describedby="link_error">',
    );
    expect(wrong.body).toMatch(
      /<input type="password" id="password" [^>]* required aria-invalid="true" aria-describedby="link_error" autofocus>/,
    );
    expect(await eventsOf('user.sign_in.failed')).toContainEqual(
      expect.objectContaining({
        actor: 'anonymous',
        outcome: 'failure',
        details: expect.objectContaining({ username: 'twin-b', reason: 'invalid_credentials', provider: 'corp-link' }),
      }),
    );
    const right = await browser.submit(formAction(wrong), { _csrf: csrfOf(wrong), username: 'twin-b', password: PASSWORD });
    expect(right.url).toBe(`${server.baseUrl}${DEFAULT_AFTER_LOGIN}`);
    expect(await identitiesOf(twinB.id)).toEqual([{ subject: 'twin-1' }]);
    expect(await usersCount()).toBe(before);
    expect(await eventsOf('user.identity.linked')).toContainEqual(
      expect.objectContaining({
        actor: `user:${twinB.id}`,
        details: expect.objectContaining({ provider: 'corp-link', subject: 'twin-1', by: 'password' }),
      }),
    );
  });

  it('with several holders, only one of their accounts proves anything (another local user with its right password is refused)', async () => {
    await localUser('outsider', 'outsider@elsewhere.example');
    await localUser('vera', 'vera@corp.example');
    const veraOther = await localUser('vera-other', 'vera@corp.example');
    const before = await usersCount();
    const { browser, page } = await signInThrough('corp', 'vera-1');
    expect(page.url).toBe(`${server.baseUrl}/login/upstream/link`);
    const refused = await browser.submit(formAction(page), { _csrf: csrfOf(page), username: 'outsider', password: PASSWORD });
    expect(refused.status).toBe(401);
    expect(await usersCount()).toBe(before);
    // One holder's account deleted: vera alone holds the email, which corp-link links by.
    await server.deps.stores.userAdmin.delete(veraOther.username);
  });

  it('a user made just in time: user.created and user.sign_in.succeeded rows with the provider', async () => {
    const { page } = await signInThrough('corp', 'jit-1');
    expect(page.url).toBe(`${server.baseUrl}${DEFAULT_AFTER_LOGIN}`);
    const jit = (await server.deps.stores.users.findByUsername('jit'))!;
    expect(await eventsOf('user.created')).toContainEqual(
      expect.objectContaining({ actor: `user:${jit.id}`, details: expect.objectContaining({ username: 'jit', provider: 'corp' }) }),
    );
    expect(await eventsOf('user.sign_in.succeeded')).toContainEqual(
      expect.objectContaining({ actor: `user:${jit.id}`, outcome: 'success', details: expect.objectContaining({ provider: 'corp' }) }),
    );
  });

  it('a link by verified email: a user.identity.linked row, by verified_email', async () => {
    const vera = (await server.deps.stores.users.findByUsername('vera'))!;
    expect((await signInThrough('corp-link', 'vera-1')).page.url).toBe(`${server.baseUrl}${DEFAULT_AFTER_LOGIN}`);
    expect(await eventsOf('user.identity.linked')).toContainEqual(
      expect.objectContaining({
        actor: `user:${vera.id}`,
        details: expect.objectContaining({ provider: 'corp-link', by: 'verified_email' }),
      }),
    );
  });
});
