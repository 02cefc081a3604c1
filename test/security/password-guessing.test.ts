import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { argon2Hasher } from '../../src/storage/argon2-hasher.js';
import type { PasswordHasher } from '../../src/oauth/users/passwords.js';
import { createUser, userAgent } from '../helpers/end-user.js';
import { createClient, type TestClient } from '../helpers/factories.js';
import { backend } from '../helpers/test-database.js';
import { buildTestServer, form, FORM, type TestServer } from '../helpers/test-server.js';

// RFC 6749 section 4.3.2: the server MUST protect the password grant against brute force. It shares the
// (user name, address) limits of /login, counts each attempt before the argon2 check, and /login spends the
// same work for unknown user names as for known ones.

const LIMITS = { maxFailures: 5, windowSeconds: 60, lockoutSeconds: 300 };

describe(`password guessing at the token endpoint and /login (${backend})`, () => {
  let server: TestServer;
  let client: TestClient;
  const checked: string[] = [];
  const countingHasher: PasswordHasher = {
    hash: (password) => argon2Hasher.hash(password),
    verify: (hash, password) => {
      checked.push(password);
      return argon2Hasher.verify(hash, password);
    },
  };

  beforeAll(async () => {
    server = await buildTestServer({
      config: { grantFlows: ['password', 'client_credentials'], rateLimit: LIMITS },
      passwords: countingHasher,
    });
    client = await createClient(server.deps, { confidential: false, redirectUri: '' });
    for (const name of ['victim', 'shared', 'racer', 'known']) await createUser(server.deps, name, 'the right password');
  });
  afterAll(() => server.close());

  const passwordGrant = (username: string, password: string, remoteAddress = '192.0.2.10') =>
    server.app.inject({
      method: 'POST',
      url: '/oauth/token',
      remoteAddress,
      headers: FORM,
      payload: form({ grant_type: 'password', client_id: client.uid, username, password }),
    });

  it('40 wrong passwords with only a public client id: 429 after maxFailures, then even the right one is refused from there (finding 1)', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 40; i += 1) statuses.push((await passwordGrant('victim', `guess-${i}`)).statusCode);
    expect(statuses.slice(0, LIMITS.maxFailures)).toEqual(Array(LIMITS.maxFailures).fill(400));
    expect(new Set(statuses.slice(LIMITS.maxFailures))).toEqual(new Set([429]));
    const right = await passwordGrant('victim', 'the right password');
    expect(right.statusCode).toBe(429);
    expect(right.json().error).toBe('temporarily_unavailable');
    expect(Number(right.headers['retry-after'])).toBeGreaterThan(0);
    // Not the whole user: from another address the owner still gets a token.
    expect((await passwordGrant('victim', 'the right password', '192.0.2.11')).statusCode).toBe(200);
  });

  it('a user locked out of /login is locked out of the password grant too, from that address', async () => {
    const agent = userAgent(server.app);
    for (let i = 0; i < LIMITS.maxFailures; i += 1) {
      const csrf = await agent.csrfFrom('/login');
      const response = await agent.request({
        method: 'POST',
        url: '/login',
        remoteAddress: '192.0.2.20',
        headers: FORM,
        payload: form({ username: 'shared', password: 'guess', _csrf: csrf }),
      });
      expect(response.statusCode).toBe(401);
    }
    expect((await passwordGrant('shared', 'the right password', '192.0.2.20')).statusCode).toBe(429);
  });

  it('60 guesses sent at once get at most maxFailures password checks (finding 2)', async () => {
    checked.length = 0;
    const responses = await Promise.all(Array.from({ length: 60 }, (_, i) => passwordGrant('racer', `guess-${i}`, '192.0.2.30')));
    const statuses = responses.map((response) => response.statusCode);
    expect(checked.length).toBeLessThanOrEqual(LIMITS.maxFailures);
    expect(statuses.filter((status) => status === 400).length).toBeLessThanOrEqual(LIMITS.maxFailures);
    expect(statuses.filter((status) => status === 429).length).toBeGreaterThanOrEqual(60 - LIMITS.maxFailures);
  });

  it('more correct password grants at once than maxFailures all get tokens: attempts in flight wait, they are not refused', async () => {
    const responses = await Promise.all(
      Array.from({ length: 3 * LIMITS.maxFailures }, () => passwordGrant('known', 'the right password', '192.0.2.40')),
    );
    expect(responses.map((response) => response.statusCode)).toEqual(responses.map(() => 200));
  });

  it('POST /login checks a password for an unknown user name exactly as for a known one (finding 4: timing told user names)', async () => {
    checked.length = 0;
    const agent = userAgent(server.app);
    expect((await agent.post('/login', { username: 'known', password: 'wrong one' })).statusCode).toBe(401);
    expect((await agent.post('/login', { username: 'nobody-by-this-name', password: 'wrong two' })).statusCode).toBe(401);
    expect(checked).toEqual(['wrong one', 'wrong two']);
  });
});
