import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { IdentityProviderConfig } from '../../src/config/identity-providers-schema.js';
import type { TrustedIssuerConfig } from '../../src/config/trusted-issuers-schema.js';
import type { GrantFlow } from '../../src/config/types.js';
import { DEFAULT_AFTER_LOGIN } from '../../src/http/hooks/authenticate-resource-owner.js';
import { updateUserProfile } from '../../src/oauth/users/users.js';
import type { UserRecord } from '../../src/oauth/store.js';
import { PASSWORD } from '../helpers/end-user.js';
import type { TestClient } from '../helpers/factories.js';
import { listeningTestServer } from '../helpers/listening-server.js';
import { basic, tokenRequest } from '../helpers/oauth-requests.js';
import type { TestServer } from '../helpers/test-server.js';
import { assertionClaims, assertionIssuer, JWT_BEARER_GRANT, jwtBearerClient, type AssertionIssuer } from '../helpers/trusted-issuer.js';
import { csrfOf, fetchBrowser, formAction, signInAtUpstream } from '../helpers/upstream-browser.js';
import { upstreamForProduct, type UpstreamProvider } from '../helpers/upstream-provider.js';

// Audit i findings 3 and 6 (docs/behaviour.md 3.23 Users, items 2 and 3). Linking by verified email needs both sides
// to vouch: a local address counts when it was verified here (users.email_verified_by NULL) or by the provider that
// links, never on another upstream's word (account pre-hijacking: provider A makes or refreshes a user with a
// "verified" victim address, and the victim's first sign-in through provider B lands in that account). The JWT bearer
// grant's trusted issuers count only addresses verified here. And an email the upstream does not say is verified
// matches no local user: the link page would otherwise tell anyone which addresses have an account here.

const ACCOUNTS = {
  // Through corp (no linkByVerifiedEmail), the attacker's upstream account claims Dana's address, "verified".
  'mallory-1': { email: 'dana@corp.example', email_verified: true, preferred_username: 'dana-attacker' },
  'dana-1': { email: 'dana@corp.example', email_verified: true, preferred_username: 'dana' },
  // Linked to the local user sam by name (and password), its address becomes sam's on corp's word at the refresh.
  'shift-1': { email: 'ivan@corp.example', email_verified: true, preferred_username: 'sam' },
  'ivan-1': { email: 'ivan@corp.example', email_verified: true, preferred_username: 'ivan' },
  'paul-1': { email: 'paul@corp.example', email_verified: true, preferred_username: 'paul' },
  'paul-2': { email: 'paul@corp.example', email_verified: true, preferred_username: 'paul.two' },
  'rex-1': { email: 'rex@corp.example', email_verified: true, preferred_username: 'rex' },
  'rex-2': { email: 'rex@corp.example', email_verified: true, preferred_username: 'rex.two' },
  'probe-1': { email: 'victim@corp.example', email_verified: false, preferred_username: 'probe' },
  'probe-2': { email: 'victim@corp.example', email_verified: false, preferred_username: 'probe.two' },
};

const IDP = 'https://idp.example.com';

describe('upstream sign-in: whose word a verified email is, and what an unverified one matches', () => {
  let upstream: UpstreamProvider;
  let issuer: AssertionIssuer;
  let agent: TestClient;
  let server: TestServer & { baseUrl: string };
  const sql = () => server.testDatabase.database.sql;
  const usersCount = async () => Number((await sql().query<{ n: string }>('SELECT count(*) AS n FROM users'))[0]!.n);
  const byName = async (username: string) => (await server.deps.stores.users.findByUsername(username))!;
  const verifiedBy = async (username: string) =>
    (await sql().query<{ email_verified_by: string | null }>('SELECT email_verified_by FROM users WHERE username = $1', [username]))[0]!
      .email_verified_by;
  const identitiesOf = async (userId: number) =>
    (
      await sql().query<{ subject: string }>('SELECT subject FROM oauth_federated_subjects WHERE user_id = $1 ORDER BY subject', [userId])
    ).map(({ subject }) => subject);
  const localUser = (username: string, email: string): Promise<UserRecord> =>
    server.deps.passwords
      .hash(PASSWORD)
      .then((passwordHash) => server.deps.stores.userAdmin.create({ username, passwordHash, email, emailVerified: true }));

  beforeAll(async () => {
    let port: number;
    ({ upstream, port } = await upstreamForProduct(['corp', 'corp-link', 'corp-closed'], ACCOUNTS));
    issuer = await assertionIssuer();
    const provider = { issuer: upstream.issuer, clientId: 'oauth-service' };
    server = await listeningTestServer(
      {
        grantFlows: ['authorization_code', 'refresh_token', JWT_BEARER_GRANT] as GrantFlow[],
        identityProviders: [
          { ...provider, id: 'corp', name: 'Corp SSO' },
          { ...provider, id: 'corp-link', name: 'Corp SSO (linking)', linkByVerifiedEmail: true },
          { ...provider, id: 'corp-closed', name: 'Corp SSO (no new users)', createUsers: false },
        ] as IdentityProviderConfig[],
        trustedIssuers: [
          { issuer: IDP, jwksUri: issuer.jwksUri, clients: ['agent'], scopes: ['read'], userMatch: 'email' },
        ] as TrustedIssuerConfig[],
      },
      {
        port,
        env: {
          IDP_CORP_CLIENT_SECRET: 'upstream-secret',
          IDP_CORP_LINK_CLIENT_SECRET: 'upstream-secret',
          IDP_CORP_CLOSED_CLIENT_SECRET: 'upstream-secret',
        },
      },
    );
    agent = await jwtBearerClient(server.deps, 'agent');
  });
  afterAll(async () => {
    await server?.close();
    await upstream?.stop();
    await issuer?.close();
  });

  async function signInThrough(id: string, account: string) {
    const browser = fetchBrowser();
    return { browser, page: await signInAtUpstream(browser, await browser.open(`${server.baseUrl}/login/upstream/${id}`), account) };
  }
  const redeem = async (sub: string, email: string) =>
    tokenRequest(
      server.app,
      {
        grant_type: JWT_BEARER_GRANT,
        assertion: await issuer.sign(assertionClaims({ iss: IDP, aud: server.baseUrl, sub, email, email_verified: true })),
      },
      basic(agent.uid, agent.secret!),
    );

  it('an address one provider made verified does not link the first sign-in through another (account pre-hijacking)', async () => {
    expect((await signInThrough('corp', 'mallory-1')).page.url).toBe(`${server.baseUrl}${DEFAULT_AFTER_LOGIN}`);
    const attacker = await byName('dana-attacker');
    expect(attacker).toMatchObject({ email: 'dana@corp.example', emailVerified: true });
    expect(await verifiedBy('dana-attacker')).toBe('corp');

    // The real Dana through the provider that links by verified email: asked to prove that account, not signed in as it.
    const { page } = await signInThrough('corp-link', 'dana-1');
    expect(page.url).toBe(`${server.baseUrl}/login/upstream/link`);
    expect(await identitiesOf(attacker.id)).toEqual(['mallory-1']);
  });

  it("the same through the claims refreshed at a sign-in: the new address is verified on that provider's word only", async () => {
    const sam = await localUser('sam', 'sam@here.example');
    const { browser, page } = await signInThrough('corp', 'shift-1');
    expect(page.url).toBe(`${server.baseUrl}/login/upstream/link`);
    const proven = await browser.submit(formAction(page), { _csrf: csrfOf(page), password: PASSWORD });
    expect(proven.url).toBe(`${server.baseUrl}${DEFAULT_AFTER_LOGIN}`);
    expect(await byName('sam')).toMatchObject({ email: 'ivan@corp.example', emailVerified: true });
    expect(await verifiedBy('sam')).toBe('corp');

    expect((await signInThrough('corp-link', 'ivan-1')).page.url).toBe(`${server.baseUrl}/login/upstream/link`);
    expect(await identitiesOf(sam.id)).toEqual(['shift-1']);
  });

  it('an address the linking provider itself verified links its next identity', async () => {
    expect((await signInThrough('corp-link', 'paul-1')).page.url).toBe(`${server.baseUrl}${DEFAULT_AFTER_LOGIN}`);
    const paul = await byName('paul');
    expect(await verifiedBy('paul')).toBe('corp-link');
    const before = await usersCount();
    expect((await signInThrough('corp-link', 'paul-2')).page.url).toBe(`${server.baseUrl}${DEFAULT_AFTER_LOGIN}`);
    expect(await usersCount()).toBe(before);
    expect(await identitiesOf(paul.id)).toEqual(['paul-1', 'paul-2']);
  });

  it('a write here (admin, CLI, apply: updateUserProfile) makes the address verified here; then it links, and only then', async () => {
    expect((await signInThrough('corp', 'rex-1')).page.url).toBe(`${server.baseUrl}${DEFAULT_AFTER_LOGIN}`);
    const rex = await byName('rex');
    expect(await verifiedBy('rex')).toBe('corp');
    // Another write than of email or email_verified leaves whose word the address is.
    const renamed = (await updateUserProfile(server.deps, rex, { name: 'Rex Renamed' }))!;
    expect(await verifiedBy('rex')).toBe('corp');
    expect((await redeem('rex-at-idp', 'rex@corp.example')).statusCode).toBe(400);

    const unverified = (await updateUserProfile(server.deps, renamed, { emailVerified: false }))!;
    await updateUserProfile(server.deps, unverified, { emailVerified: true });
    expect(await verifiedBy('rex')).toBeNull();
    expect((await signInThrough('corp-link', 'rex-2')).page.url).toBe(`${server.baseUrl}${DEFAULT_AFTER_LOGIN}`);
    expect(await identitiesOf(rex.id)).toEqual(['rex-1', 'rex-2']);
    expect((await redeem('rex-at-idp', 'rex@corp.example')).statusCode).toBe(200);
  });

  it("the JWT bearer grant's userMatch email counts only an address verified here", async () => {
    const refused = await redeem('dana-at-idp', 'dana@corp.example');
    expect(refused.statusCode).toBe(400);
    expect(refused.json()).toMatchObject({ error: 'invalid_grant' });
    await localUser('vic', 'vic@corp.example');
    expect((await redeem('vic-at-idp', 'vic@corp.example')).statusCode).toBe(200);
  });

  it('an email the upstream does not say is verified matches no local user: no link page naming it', async () => {
    const victim = await localUser('victim', 'victim@corp.example');
    const before = await usersCount();
    const { page } = await signInThrough('corp', 'probe-1');
    expect(page.url).toBe(`${server.baseUrl}${DEFAULT_AFTER_LOGIN}`);
    expect(page.body).not.toContain('victim@corp.example');
    expect(await usersCount()).toBe(before + 1);
    expect(await byName('probe')).toMatchObject({ email: 'victim@corp.example', emailVerified: false });
    expect(await identitiesOf(victim.id)).toEqual([]);

    // Where the provider creates no users, the same as an address nobody here has: no_user.
    const closed = await signInThrough('corp-closed', 'probe-2');
    expect(closed.page.status).toBe(403);
    expect(closed.page.body).not.toContain('victim@corp.example');
    expect(await identitiesOf(victim.id)).toEqual([]);
  });
});
