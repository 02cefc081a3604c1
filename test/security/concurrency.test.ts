import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { storedForm } from '../../src/oauth/secrets.js';
import { createClient, createCode, createUser, issueToken, type TestClient } from '../helpers/factories.js';
import { TEXT } from '../helpers/oauth-requests.js';
import { backend, createTestDatabase, type TestDatabase } from '../helpers/test-database.js';
import { basicAuth, type TestServer } from '../helpers/test-server.js';
import { securityServer } from './support.js';

// SPEC 3.1 and 9: concurrent use of one code or one refresh token rotates exactly once, and a revoked token is
// never reported active once the revocation has returned, on either of two instances sharing the database.
// Through real loopback sockets, so the requests truly overlap.

const PARALLEL = 50;

interface Answer {
  status: number;
  body: Record<string, unknown>;
}

describe(`SPEC 9: concurrency on one code, one refresh token, one token (${backend})`, () => {
  let db: TestDatabase;
  let a: TestServer;
  let b: TestServer;
  let urlA: string;
  let urlB: string;
  let client: TestClient;
  let userId: number;

  beforeAll(async () => {
    db = await createTestDatabase();
    a = await securityServer({}, db);
    b = await securityServer({}, db);
    urlA = await a.app.listen({ port: 0, host: '127.0.0.1' });
    urlB = await b.app.listen({ port: 0, host: '127.0.0.1' });
    client = await createClient(a.deps);
    userId = (await createUser(a.deps)).id;
  });
  afterAll(async () => {
    await a.close();
    await b.close();
    await db.drop();
  });

  async function post(base: string, path: string, params: Record<string, string>): Promise<Answer> {
    const response = await fetch(`${base}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: basicAuth(client.uid, client.secret!) },
      body: new URLSearchParams(params),
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  }
  const isActive = async (token: string) => (await post(urlA, '/oauth/introspect', { token })).body.active;
  const tokensOf = async (where: string, value: number) =>
    Number(
      (
        await db.database.sql.query<{ n: number | string }>(`SELECT count(*) AS n FROM oauth_access_tokens WHERE ${where} = $1`, [value])
      )[0]!.n,
    );

  function expectOneWinner(answers: Answer[]): Answer {
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, ...Array<number>(PARALLEL - 1).fill(400)]);
    for (const loser of answers.filter((answer) => answer.status !== 200)) {
      expect(loser.body).toEqual({ error: 'invalid_grant', error_description: TEXT.invalidGrant });
    }
    return answers.find((answer) => answer.status === 200)!;
  }

  it(`RFC 6749 section 4.1.2: ${PARALLEL} parallel exchanges of one code on two instances: one 200, the rest invalid_grant; the losers count as a replay, so the winner's tokens end up revoked`, async () => {
    const grant = await createCode(a.deps, { application: client.application, resourceOwnerId: userId });
    const answers = await Promise.all(
      Array.from({ length: PARALLEL }, (_, i) =>
        post(i % 2 ? urlB : urlA, '/oauth/token', { grant_type: 'authorization_code', code: grant.code, redirect_uri: grant.redirectUri }),
      ),
    );
    const winner = expectOneWinner(answers);
    const grantId = (await a.deps.stores.accessGrants.findByToken(storedForm(grant.code, a.config.hashTokens)))!.id;
    expect(await tokensOf('access_grant_id', grantId)).toBe(1);
    expect(await isActive(String(winner.body.access_token))).toBe(false);
    expect(await isActive(String(winner.body.refresh_token))).toBe(false);
  });

  it(`SPEC 3.1: ${PARALLEL} parallel refreshes of one token on two instances: one 200, the rest invalid_grant; reuse detection then revokes the family, the winner's pair included`, async () => {
    const issued = await issueToken(a.deps, {
      application: client.application,
      resourceOwnerId: userId,
      withRefreshToken: true,
      grantType: 'authorization_code',
    });
    const before = await tokensOf('application_id', client.application.id);
    const answers = await Promise.all(
      Array.from({ length: PARALLEL }, (_, i) =>
        post(i % 2 ? urlB : urlA, '/oauth/token', { grant_type: 'refresh_token', refresh_token: issued.refreshToken! }),
      ),
    );
    const winner = expectOneWinner(answers);
    expect(await tokensOf('application_id', client.application.id)).toBe(before + 1);
    expect(await isActive(String(winner.body.access_token))).toBe(false);
    expect(await isActive(issued.refreshToken!)).toBe(false);
  });

  it('RFC 7009 section 2.2: introspections racing a revocation on two instances: every one started after the revocation returned is inactive', async () => {
    const issued = await issueToken(a.deps, { application: client.application, resourceOwnerId: userId, withRefreshToken: true });
    const results: Array<{ started: number; active: unknown }> = [];
    let revokedAt = Number.POSITIVE_INFINITY;
    let stop = false;
    const worker = async (i: number) => {
      while (!stop) {
        const started = performance.now();
        const token = i % 3 === 2 ? issued.refreshToken! : issued.accessToken;
        const answer = await post(i % 2 ? urlB : urlA, '/oauth/introspect', { token });
        expect(answer.status).toBe(200);
        results.push({ started, active: answer.body.active });
      }
    };
    const workers = Array.from({ length: 8 }, (_, i) => worker(i));
    await new Promise((resolve) => setTimeout(resolve, 150));
    const revoked = await post(urlA, '/oauth/revoke', { token: issued.accessToken });
    revokedAt = performance.now();
    expect(revoked).toEqual({ status: 200, body: {} });
    await new Promise((resolve) => setTimeout(resolve, 300));
    stop = true;
    await Promise.all(workers);

    const after = results.filter((result) => result.started > revokedAt);
    expect(results.filter((result) => result.started < revokedAt && result.active === true).length).toBeGreaterThan(0);
    expect(after.length).toBeGreaterThan(10);
    expect(after.filter((result) => result.active !== false)).toEqual([]);
  });
});
