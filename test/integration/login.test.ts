import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isSafeReturnPath } from '../../src/http/hooks/authenticate-resource-owner.js';
import { createUser, csrfTokenIn, PASSWORD, signedIn, userAgent, type UserAgent } from '../helpers/end-user.js';
import { backend } from '../helpers/test-database.js';
import { buildTestServer, FORM, form, type TestServer } from '../helpers/test-server.js';

const LIMITS = { maxFailures: 3, windowSeconds: 60, lockoutSeconds: 120, maxUserNamesPerAddress: 4 };

describe(`/login and /logout (${backend})`, () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await buildTestServer({ config: { rateLimit: LIMITS } });
    for (const name of ['alice', 'bob', 'carol', 'dave', 'erin', 'gone']) await createUser(server.deps, name);
  });
  afterAll(() => server.close());

  const loggedIn = async (agent: UserAgent) =>
    (await agent.request({ method: 'GET', url: '/oauth/authorized_applications' })).statusCode === 200;

  it('GET /login shows a form with username, password and a CSRF token, not cached, not framable', async () => {
    const response = await server.app.inject({ method: 'GET', url: '/login' });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toContain('text/html');
    expect(response.body).toContain('<form method="post" action="/login">');
    expect(response.body).toContain('name="username"');
    expect(response.body).toContain('name="password"');
    expect(csrfTokenIn(response.body)).toBeTruthy();
    expect(response.headers['x-frame-options']).toBe('DENY');
    expect(response.headers['cache-control']).toBe('no-store');
  });

  it('POST /login with the right password sets an HttpOnly, SameSite=Lax session cookie and goes to the authorized applications', async () => {
    const agent = userAgent(server.app);
    const response = await agent.post('/login', { username: 'alice', password: PASSWORD });
    expect(response.statusCode).toBe(303);
    expect(response.headers.location).toBe('/oauth/authorized_applications');
    const cookie = String(response.headers['set-cookie']);
    expect(cookie).toMatch(/oauth_session=/);
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Lax/);
    const page = await agent.request({ method: 'GET', url: '/oauth/authorized_applications' });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('<strong>alice</strong>');
  });

  it('POST /login with a wrong password answers 401 after a delay and starts no session', async () => {
    const agent = userAgent(server.app);
    const started = Date.now();
    const response = await agent.post('/login', { username: 'bob', password: 'wrong' });
    expect(Date.now() - started).toBeGreaterThanOrEqual(290);
    expect(response.statusCode).toBe(401);
    expect(response.body).toContain('Invalid username or password.');
    expect(response.body).toContain('value="bob"');
    expect(await loggedIn(agent)).toBe(false);
  });

  it('POST /login for an unknown user answers exactly like a wrong password', async () => {
    const response = await userAgent(server.app).post('/login', { username: 'nobody', password: 'wrong' });
    expect(response.statusCode).toBe(401);
    expect(response.body).toContain('Invalid username or password.');
  });

  it('POST /login with blank fields asks for both', async () => {
    const response = await userAgent(server.app).post('/login', { username: '', password: '' });
    expect(response.statusCode).toBe(400);
    expect(response.body).toContain('Enter your username and password.');
  });

  it('POST /login without a valid CSRF token is refused with 403 and logs nobody in', async () => {
    const agent = userAgent(server.app);
    await agent.request({ method: 'GET', url: '/login' });
    const response = await agent.post('/login', { username: 'alice', password: PASSWORD, _csrf: 'forged' });
    expect(response.statusCode).toBe(403);
    expect(response.headers['content-type']).toContain('text/html');
    expect(await loggedIn(agent)).toBe(false);
    const bare = await server.app.inject({
      method: 'POST',
      url: '/login',
      headers: FORM,
      payload: form({ username: 'alice', password: PASSWORD }),
    });
    expect(bare.statusCode).toBe(403);
  });

  const loginFrom = async (ip: string, username: string, password: string, agent = userAgent(server.app)) =>
    agent.request({
      method: 'POST',
      url: '/login',
      remoteAddress: ip,
      headers: FORM,
      payload: form({ username, password, _csrf: await agent.csrfFrom('/login') }),
    });

  it('locks the (user name, IP) pair after rateLimit.maxFailures failures: 429 with Retry-After there, even for the right password', async () => {
    for (let i = 0; i < LIMITS.maxFailures; i += 1) expect((await loginFrom('10.0.0.1', 'carol', 'guess')).statusCode).toBe(401);
    const agent = userAgent(server.app);
    const locked = await loginFrom('10.0.0.1', 'carol', PASSWORD, agent);
    expect(locked.statusCode).toBe(429);
    expect(Number(locked.headers['retry-after'])).toBe(LIMITS.lockoutSeconds);
    expect(locked.body).toContain('Too many failed sign-in attempts');
    expect(await loggedIn(agent)).toBe(false);
    server.clock.advance(LIMITS.lockoutSeconds);
    expect((await loginFrom('10.0.0.1', 'carol', PASSWORD)).statusCode).toBe(303);
  });

  it('failures for a user from other addresses never lock that user out elsewhere (the lockout strangers could trigger)', async () => {
    for (const ip of ['10.0.1.1', '10.0.1.2', '10.0.1.3']) {
      for (let i = 0; i < LIMITS.maxFailures; i += 1) expect((await loginFrom(ip, 'dave', 'guess')).statusCode).toBe(401);
    }
    expect((await loginFrom('10.0.1.4', 'dave', PASSWORD)).statusCode).toBe(303);
    // The same IP, another user: the pair is (user name, IP), not the IP.
    expect((await loginFrom('10.0.1.1', 'erin', PASSWORD)).statusCode).toBe(303);
    server.clock.advance(LIMITS.lockoutSeconds);
  });

  it('locks an IP out for everyone once maxUserNamesPerAddress different user names failed from it (password spraying)', async () => {
    const ip = '192.0.2.7';
    const names = Array.from({ length: LIMITS.maxUserNamesPerAddress }, (_, i) => `sprayed-${i}`);
    for (const username of names) expect((await loginFrom(ip, username, 'Summer2026!')).statusCode).toBe(401);
    const locked = await loginFrom(ip, 'dave', PASSWORD);
    expect(locked.statusCode).toBe(429);
    expect(locked.headers['retry-after']).toBe(String(LIMITS.lockoutSeconds));
    // Another IP is not affected.
    expect((await loginFrom('192.0.2.8', 'dave', PASSWORD)).statusCode).toBe(303);
    server.clock.advance(LIMITS.lockoutSeconds);
  });

  it('one user name failing many times counts once towards the spraying limit of its IP', async () => {
    const ip = '192.0.2.9';
    for (let i = 0; i < LIMITS.maxFailures; i += 1) expect((await loginFrom(ip, 'alice', 'guess')).statusCode).toBe(401);
    expect((await loginFrom(ip, 'bob', PASSWORD)).statusCode).toBe(303);
    server.clock.advance(LIMITS.lockoutSeconds);
  });

  it('one user name failing with its checks in flight together still counts once towards the spraying limit', async () => {
    const ip = '192.0.2.10';
    for (const username of Array.from({ length: LIMITS.maxUserNamesPerAddress - 1 }, (_, i) => `parallel-${i}`)) {
      const statuses = await Promise.all(Array.from({ length: LIMITS.maxFailures + 2 }, () => loginFrom(ip, username, 'guess')));
      expect(statuses.filter((response) => response.statusCode === 401)).toHaveLength(LIMITS.maxFailures);
    }
    // As many names as the limit less one, each failing maxFailures times together (all its checks in flight at once).
    expect((await loginFrom(ip, 'bob', PASSWORD)).statusCode).toBe(303);
    server.clock.advance(LIMITS.lockoutSeconds);
  });

  it('60 logins sent at once for one user from one IP get at most maxFailures password checks (finding 2: 59 x 401 then 303)', async () => {
    const guesses = Array.from({ length: 59 }, () => loginFrom('198.51.100.1', 'erin', 'guess'));
    const right = loginFrom('198.51.100.1', 'erin', PASSWORD);
    const statuses = (await Promise.all([...guesses, right])).map((response) => response.statusCode);
    const checked = statuses.filter((status) => status === 401 || status === 303);
    expect(checked.length).toBeLessThanOrEqual(LIMITS.maxFailures);
    expect(statuses.filter((status) => status === 429).length).toBeGreaterThanOrEqual(60 - LIMITS.maxFailures);
    server.clock.advance(LIMITS.lockoutSeconds);
  });

  it('returns to the page that required the login', async () => {
    const agent = userAgent(server.app);
    const page = '/oauth/authorized_applications?tab=x%20y';
    const first = await agent.request({ method: 'GET', url: page });
    expect(first.statusCode).toBe(302);
    expect(first.headers.location).toBe('/login');
    const login = await agent.post('/login', { username: 'erin', password: PASSWORD });
    expect(login.statusCode).toBe(303);
    expect(login.headers.location).toBe(page);
    // Used once: the next login goes to the default page.
    const again = await agent.request({ method: 'GET', url: '/login' });
    expect(again.headers.location).toBe('/oauth/authorized_applications');
  });

  it('never returns to an absolute URL: return parameters on /login are ignored', async () => {
    const agent = userAgent(server.app);
    const csrf = await agent.csrfFrom('/login?returnTo=https://evil.example/&return_to=//evil.example');
    const response = await agent.request({
      method: 'POST',
      url: '/login?returnTo=https://evil.example/&return_to=//evil.example',
      headers: FORM,
      payload: form({ username: 'erin', password: PASSWORD, _csrf: csrf, returnTo: 'https://evil.example/', return_to: '//evil.example' }),
    });
    expect(response.statusCode).toBe(303);
    expect(response.headers.location).toBe('/oauth/authorized_applications');
  });

  it.each([
    'https://evil.example/',
    '//evil.example/x',
    '/\\evil.example',
    '/\\/evil.example',
    'evil.example',
    '',
    '/a b',
    '/a\r\nLocation: x',
    'javascript:alert(1)',
  ])('a return path of %j is refused', (path) => expect(isSafeReturnPath(path)).toBe(false));

  it.each(['/', '/oauth/authorize?client_id=a&redirect_uri=https%3A%2F%2Fc.example%2Fcb', '/oauth/authorized_applications'])(
    'a return path of %j is a local path',
    (path) => expect(isSafeReturnPath(path)).toBe(true),
  );

  it('GET /logout shows a confirm form; POST /logout without CSRF is refused and the session stays', async () => {
    const agent = await signedIn(server.app, 'alice');
    const page = await agent.request({ method: 'GET', url: '/logout' });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('<form method="post" action="/logout">');
    const forged = await agent.request({ method: 'POST', url: '/logout', headers: FORM, payload: form({ _csrf: 'forged' }) });
    expect(forged.statusCode).toBe(403);
    expect(await loggedIn(agent)).toBe(true);
  });

  it('POST /logout ends the session and says so on the login page', async () => {
    const agent = await signedIn(server.app, 'alice');
    const response = await agent.post('/logout', {}, '/logout');
    expect(response.statusCode).toBe(303);
    expect(response.headers.location).toBe('/login');
    const login = await agent.request({ method: 'GET', url: '/login' });
    expect(login.body).toContain('You have been signed out.');
    expect(await loggedIn(agent)).toBe(false);
  });

  it('a user deleted after logging in is logged out', async () => {
    const agent = await signedIn(server.app, 'gone');
    await server.deps.stores.userAdmin.delete('gone');
    const response = await agent.request({ method: 'GET', url: '/oauth/authorized_applications' });
    expect(response.statusCode).toBe(302);
    expect(response.headers.location).toBe('/login');
  });
});
