import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UsernameTaken } from '../../src/oauth/store.js';
import { createUser } from '../../src/oauth/users/users.js';
import { PASSWORD, createUser as storeUser, userAgent } from '../helpers/end-user.js';
import { backend } from '../helpers/test-database.js';
import { buildTestServer, type TestServer } from '../helpers/test-server.js';

// "José" typed as one code point for the é (NFC) or as e and a combining accent (NFD, as some keyboards and copied
// file names give it) reads the same: one user, signed in by either, counted as one name by the failure limits. Two
// users of that name existed side by side, and the user created with one form could not sign in typing the other.
// Passwords likewise (NIST SP 800-63B section 5.1.1.2: hashed in NFKC). Found by a black-box probe.

const NFC = 'Jos\u00e9';
const NFD = 'Jose\u0301';

describe(`user names and passwords in either Unicode form (${backend})`, () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await buildTestServer({ config: { rateLimit: { maxFailures: 3 } } });
  });
  afterAll(() => server.close());

  const logIn = async (username: string, password = PASSWORD) =>
    (await userAgent(server.app).post('/login', { username, password })).statusCode;

  it('a name is stored in NFC; the same name in the other form is taken; either form signs in', async () => {
    const user = await createUser(server.deps, NFD, PASSWORD);
    expect(user.username).toBe(NFC);
    await expect(createUser(server.deps, NFC, PASSWORD)).rejects.toBeInstanceOf(UsernameTaken);
    await expect(createUser(server.deps, NFD, PASSWORD)).rejects.toBeInstanceOf(UsernameTaken);
    expect({ nfc: await logIn(NFC), nfd: await logIn(NFD) }).toEqual({ nfc: 303, nfd: 303 });
  });

  it('a name stored decomposed (before names were stored in NFC) signs in typed in either form', async () => {
    await storeUser(server.deps, 'Ren\u0065\u0301e', PASSWORD);
    expect({ nfc: await logIn('Ren\u00e9e'), nfd: await logIn('Ren\u0065\u0301e') }).toEqual({ nfc: 303, nfd: 303 });
  });

  it('a password is hashed in NFKC: typed composed, decomposed or in full-width letters it signs in; an older hash of the typed form too', async () => {
    await createUser(server.deps, 'chef', 'cre\u0300me bru\u0302le\u0301e');
    expect({ nfd: await logIn('chef', 'cre\u0300me bru\u0302le\u0301e'), nfc: await logIn('chef', 'cr\u00e8me br\u00fbl\u00e9e') }).toEqual(
      {
        nfd: 303,
        nfc: 303,
      },
    );
    await createUser(server.deps, 'wide', '\uff50\uff41\uff53\uff53\uff57\uff4f\uff52\uff44\uff11\uff12');
    expect({
      wide: await logIn('wide', '\uff50\uff41\uff53\uff53\uff57\uff4f\uff52\uff44\uff11\uff12'),
      ascii: await logIn('wide', 'password12'),
    }).toEqual({
      wide: 303,
      ascii: 303,
    });
    // Hashed as typed by an earlier version: still signs in typed so.
    await storeUser(server.deps, 'older', 'cre\u0300me bru\u0302le\u0301e');
    expect(await logIn('older', 'cre\u0300me bru\u0302le\u0301e')).toBe(303);
  });

  it('wrong passwords typed under either form count against one name: the lockout holds for both', async () => {
    await createUser(server.deps, 'Zo\u00eb', PASSWORD);
    const failures = [
      await logIn('Zo\u00eb', 'wrong password 1'),
      await logIn('Zoe\u0308', 'wrong password 2'),
      await logIn('Zo\u00eb', 'wrong 3'),
    ];
    expect(failures).toEqual([401, 401, 401]);
    expect({ nfc: await logIn('Zo\u00eb'), nfd: await logIn('Zoe\u0308') }).toEqual({ nfc: 429, nfd: 429 });
  });
});
