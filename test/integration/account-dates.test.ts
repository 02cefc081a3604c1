import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, createUser, liveToken, signedIn, type UserAgent } from '../helpers/end-user.js';
import { storedPasskey } from '../helpers/second-factor.js';
import { backend } from '../helpers/test-database.js';
import { buildTestServer, type TestServer } from '../helpers/test-server.js';

// The account page's and the authorized applications page's dates in the page's language, as the consent page writes
// its own ("29. November 2026"), with the time and its zone named: UTC, as the server does not know the reader's zone.
// The <time datetime> keeps the instant for machines.

const SIGNED_IN = new Date('2026-11-29T16:33:58Z');
const ISO = SIGNED_IN.toISOString();

const EXPECTED = {
  en: '29 November 2026 at 16:33:58 UTC',
  de: '29. November 2026 um 16:33:58 UTC',
  fr: '29 novembre 2026 à 16:33:58 UTC',
  es: '29 de noviembre de 2026',
  ja: '2026年11月29日 16:33:58 UTC',
} as const;

describe(`dates on /account and /oauth/authorized_applications in the page's language (${backend})`, () => {
  let server: TestServer;
  let browser: UserAgent;

  beforeAll(async () => {
    server = await buildTestServer();
    const user = await createUser(server.deps, 'datiert');
    browser = await signedIn(server.app, 'datiert');
    // The sign-in's time only: last_seen_at stays now's, as a session unused for 8 hours has ended (the fixed date
    // would end it once the real clock is 8 hours past it).
    await server.testDatabase.database.sql.query('UPDATE login_sessions SET auth_time = $1 WHERE user_id = $2', [SIGNED_IN, user.id]);
    await server.deps.stores.passkeys.create(storedPasskey(user.id, 'cred-datiert', 'Laptop'), SIGNED_IN);
    const { application } = await createClient(server.deps, { name: 'Photo Printer' });
    await server.deps.stores.accessTokens.create(liveToken(application.id, user.id, ['read'], SIGNED_IN, null));
  });
  afterAll(() => server.close());

  const page = (url: string, language: string) => browser.request({ method: 'GET', url, headers: { 'accept-language': language } });

  for (const [language, date] of Object.entries(EXPECTED)) {
    it(`${language}: sessions, passkeys, the sign-out button's name and the authorized application say "${date}…"`, async () => {
      const account = await page('/account', language);
      expect(account.statusCode).toBe(200);
      const sessions = account.body.slice(account.body.indexOf('<table id="sessions">'));
      const passkeys = account.body.slice(account.body.indexOf('<table id="passkeys">'));
      const timeElement = new RegExp(`<time datetime="${ISO}">${date}[^<]*</time>`);
      expect(sessions).toMatch(timeElement);
      expect(passkeys).toMatch(timeElement);
      expect(sessions).toMatch(new RegExp(`<button type="submit" class="danger" aria-label="[^"]*${date}[^"]*"`));
      expect(account.body).not.toContain('2026-11-29 16:33:58 UTC');

      const authorized = await page('/oauth/authorized_applications', language);
      expect(authorized.body).toMatch(timeElement);
      expect(authorized.body).not.toContain('2026-11-29 16:33:58 UTC');
    });
  }
});
