import { decodeJwt, decodeProtectedHeader, generateKeyPair, SignJWT, UnsecuredJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authorizeUrl, hiddenFields, locationParameters, PASSWORD, signedIn, userAgent } from '../helpers/end-user.js';
import { authorize, codeFlow } from '../helpers/openid.js';
import {
  CLAIMS,
  codeFrom,
  exchange,
  openIdProvider,
  redirectedError,
  suiteCodeFlow,
  suiteRequest,
  type OpenIdProvider,
} from './support.js';

// Issue 16's hostile input at the authorization endpoint and on the pages: forged ID token hints, nonces
// replayed across sessions, a disabled user's session, and markup in everything a page prints.

const XSS = '"><script>alert(1)</script><img src=x onerror=alert(2)>';

describe('hostile input', () => {
  let op: OpenIdProvider;
  let idToken: string;
  beforeAll(async () => {
    op = await openIdProvider({ config: { skipAuthorization: { whenPreviouslyAuthorized: true } } });
    idToken = (await suiteCodeFlow(op)).tokens.id_token;
  });
  afterAll(() => op.close());

  const hintRequest = (hint: string) => suiteRequest(op.client, { id_token_hint: hint });
  const withHint = async (hint: string) => {
    const request = hintRequest(hint);
    return redirectedError(await op.agent.request({ method: 'GET', url: authorizeUrl(request) }), request);
  };

  describe('id_token_hint (Core 3.1.2.1: the OP must be the issuer, the signature must verify)', () => {
    it('the genuine hint is accepted (consent is remembered here, so a code comes back at once)', async () => {
      const request = hintRequest(idToken);
      codeFrom(await op.agent.request({ method: 'GET', url: authorizeUrl(request) }), request);
    });

    it('one character of the signature changed: invalid_request', async () => {
      const [header, payload, signature] = idToken.split('.') as [string, string, string];
      const changed = `${signature.slice(0, 10)}${signature[10] === 'A' ? 'B' : 'A'}${signature.slice(11)}`;
      expect(await withHint(`${header}.${payload}.${changed}`)).toBe('invalid_request');
    });

    it('the same claims unsigned (alg none): invalid_request', async () => {
      expect(await withHint(new UnsecuredJWT(decodeJwt(idToken)).encode())).toBe('invalid_request');
    });

    it('signed by a foreign key, under a kid that does not exist or under the real kid: invalid_request', async () => {
      const { privateKey } = await generateKeyPair('RS256');
      const forge = (kid: string) => new SignJWT(decodeJwt(idToken)).setProtectedHeader({ alg: 'RS256', typ: 'JWT', kid }).sign(privateKey);
      expect(await withHint(await forge('no-such-kid'))).toBe('invalid_request');
      expect(await withHint(await forge(decodeProtectedHeader(idToken).kid!))).toBe('invalid_request');
    });
  });

  // The OP keeps no nonces: Core 3.1.3.7 item 11 and 15.5.2 make replay detection the RP's (it compares the ID
  // token's nonce with the one it stored in the user's session). The OP's part is to echo exactly the nonce of
  // the request each code was issued for, so a token of one session never carries another session's nonce.
  it('a nonce replayed across two sessions: each ID token carries its own request nonce', async () => {
    const sessionA = op.agent;
    const sessionB = await op.signIn();
    const requestA = suiteRequest(op.client, { nonce: 'nonce-of-session-a' });
    const requestB = suiteRequest(op.client, { nonce: 'nonce-of-session-b' });
    const codeA = codeFrom(await authorize(sessionA, requestA), requestA);
    const codeB = codeFrom(await authorize(sessionB, requestB), requestB);
    const replay = suiteRequest(op.client, { nonce: 'nonce-of-session-a' });
    const codeReplay = codeFrom(await authorize(sessionB, replay), replay);
    expect((await exchange(op, codeB, { nonce: 'nonce-of-session-b' })).claims.nonce).toBe('nonce-of-session-b');
    expect((await exchange(op, codeA, { nonce: 'nonce-of-session-a' })).claims.nonce).toBe('nonce-of-session-a');
    // Echoed, not refused: the RP of session B holds nonce-of-session-b and rejects this token.
    expect((await exchange(op, codeReplay)).claims.nonce).toBe('nonce-of-session-a');
  });

  it('prompt=none with a session of a user disabled since: login_required, no code', async () => {
    const mallory = await op.server.deps.stores.userAdmin.create({
      username: 'mallory',
      passwordHash: await op.server.deps.passwords.hash(PASSWORD),
    });
    const agent = await signedIn(op.server.app, 'mallory');
    await codeFlow(op.server, agent, op.client);
    const silent = () => suiteRequest(op.client, { prompt: 'none' });
    const before = silent();
    expect(locationParameters(await agent.request({ method: 'GET', url: authorizeUrl(before) })).get('code')).toBeTruthy();
    await op.server.deps.stores.userAdmin.setDisabledAt(mallory.id, op.server.clock.now);
    const after = silent();
    expect(redirectedError(await agent.request({ method: 'GET', url: authorizeUrl(after) }), after)).toBe('login_required');
  });

  describe('markup in what the pages print is escaped', () => {
    const expectEscaped = (body: string) => {
      expect(body).not.toContain('<script>alert(1)');
      expect(body).not.toContain('<img src=x');
      expect(body).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    };

    it('the login page pre-filled by login_hint', async () => {
      const agent = userAgent(op.server.app);
      const toLogin = await agent.request({ method: 'GET', url: authorizeUrl(suiteRequest(op.client, { login_hint: XSS })) });
      expect(toLogin.headers.location).toBe('/login');
      expectEscaped((await agent.request({ method: 'GET', url: '/login' })).body);
    });

    it('the consent, sign-out and authorized-applications pages, for a user and a client whose every field is markup', async () => {
      const claims = Object.fromEntries(Object.entries(CLAIMS).map(([name, value]) => [name, typeof value === 'string' ? XSS : value]));
      await op.server.deps.stores.userAdmin.create({
        ...claims,
        address: JSON.stringify({ formatted: XSS, locality: XSS }),
        username: XSS,
        passwordHash: await op.server.deps.passwords.hash(PASSWORD),
      });
      const agent = await signedIn(op.server.app, XSS);
      const client = await op.newClient({ name: XSS });
      const request = suiteRequest(client, { scope: 'openid profile email address phone', state: XSS, nonce: XSS, login_hint: XSS });
      const consent = await agent.request({ method: 'GET', url: authorizeUrl(request) });
      expect(consent.statusCode).toBe(200);
      expectEscaped(consent.body);
      // The hidden fields give back the exact values, so escaping changed nothing the client sent.
      expect(hiddenFields(consent.body)).toMatchObject({ state: XSS, nonce: XSS });
      const redirect = await agent.post('/oauth/authorize', hiddenFields(consent.body));
      expect(locationParameters(redirect).get('state')).toBe(XSS);
      expectEscaped((await agent.request({ method: 'GET', url: '/logout' })).body);
      expectEscaped((await agent.request({ method: 'GET', url: '/oauth/authorized_applications' })).body);
    });
  });
});
