import { createLocalJWKSet, decodeProtectedHeader, type JWTVerifyGetKey } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backchannelReceiver, validLogoutToken, type BackchannelReceiver } from '../helpers/backchannel-receiver.js';
import { form } from '../helpers/test-server.js';
import type { UserAgent } from '../helpers/end-user.js';
import { discover, discoveredJwks, ISSUER, openIdProvider, suiteCodeFlow, type Client, type OpenIdProvider } from './support.js';

// oidcc-backchannel-rp-initiated-logout: the relying party signs the user in, sends them to the end_session_endpoint
// with its id_token_hint (RP-Initiated Logout 1.0), and then expects the OP to POST a logout token to its
// backchannel_logout_uri (OpenID Connect Back-Channel Logout 1.0), which it validates as section 2.6 says. The
// relying party's endpoint is a real HTTP server on loopback; the OP's worker delivers after the logout answered.

const AFTER_LOGOUT = 'https://client.example.com/signed-out';

describe('oidcc-backchannel-rp-initiated-logout (OpenID Connect Back-Channel Logout 1.0)', () => {
  let op: OpenIdProvider;
  let receiver: BackchannelReceiver;
  let bystander: BackchannelReceiver;
  let client: Client;
  let keys: JWTVerifyGetKey;
  beforeAll(async () => {
    op = await openIdProvider();
    receiver = await backchannelReceiver();
    bystander = await backchannelReceiver();
    client = await op.newClient({ backchannelLogoutUri: receiver.url, postLogoutRedirectUri: AFTER_LOGOUT });
    // Another relying party of the same OP, with its own back-channel endpoint, that the user never signs in to.
    await op.newClient({ name: 'Bystander', backchannelLogoutUri: bystander.url });
    keys = createLocalJWKSet(await discoveredJwks(op.server));
  });
  afterAll(async () => {
    await op.close();
    await receiver.close();
    await bystander.close();
  });

  /** The code flow as `client`, then RP-Initiated Logout with its ID token as the hint: the ID token's claims. */
  async function signInThenLogOut(relyingParty: Client, agent: UserAgent) {
    const { tokens, claims } = await suiteCodeFlow(op, {}, { agent, client: relyingParty });
    const endSession = await agent.request({
      method: 'GET',
      url: `/oauth/end_session?${form({ id_token_hint: tokens.id_token, post_logout_redirect_uri: AFTER_LOGOUT, state: 'bye' })}`,
    });
    expect(endSession.statusCode, endSession.body.slice(0, 300)).toBe(303);
    expect(endSession.headers.location).toBe(`${AFTER_LOGOUT}?state=bye`);
    return claims;
  }

  it('Back-Channel Logout 1.0 section 2.1: discovery says backchannel_logout_supported and backchannel_logout_session_supported', async () => {
    const metadata = await discover(op.server);
    expect(metadata.backchannel_logout_supported).toBe(true);
    expect(metadata.backchannel_logout_session_supported).toBe(true);
  });

  it('section 2.5: after RP-initiated logout the OP POSTs logout_token as application/x-www-form-urlencoded to the backchannel_logout_uri', async () => {
    await signInThenLogOut(client, await op.signIn());
    const request = await receiver.next();
    expect(request.method).toBe('POST');
    expect(request.contentType).toBe('application/x-www-form-urlencoded');
    expect([...new URLSearchParams(request.body).keys()]).toEqual(['logout_token']);
    expect(request.logoutToken).toEqual(expect.any(String));
  });

  it('section 2.4 / 2.6: the logout token validates as a relying party checks it, names the ID token sub and sid, and has no nonce', async () => {
    const idToken = await signInThenLogOut(client, await op.signIn());
    const { logoutToken } = await receiver.next();
    const claims = await validLogoutToken(logoutToken!, { keys, issuer: ISSUER, clientId: client.application.uid });
    expect(claims.sub).toBe(idToken.sub);
    expect(claims.sid).toBe(idToken.sid);
    expect(typeof idToken.sid).toBe('string');
    // Section 2.4: a short lifetime; iat is now.
    const now = Math.floor(Date.now() / 1000);
    expect(claims.iat).toBeGreaterThanOrEqual(now - 30);
    expect(claims.exp! - claims.iat!).toBeLessThanOrEqual(120);
    expect(claims.jti).toEqual(expect.any(String));
  });

  it('section 2.4: two relying parties of one sign-in are told different sids, each logout token the sid of its own ID tokens', async () => {
    const otherReceiver = await backchannelReceiver();
    try {
      const other = await op.newClient({ name: 'Other sector', backchannelLogoutUri: otherReceiver.url });
      const agent = await op.signIn();
      const atOther = (await suiteCodeFlow(op, {}, { agent, client: other })).claims;
      // RP-Initiated Logout with the first client's id_token_hint ends the sign-in both clients saw.
      const atClient = await signInThenLogOut(client, agent);
      expect(atClient.sid).toEqual(expect.any(String));
      expect(atOther.sid).toEqual(expect.any(String));
      expect(atOther.sid).not.toBe(atClient.sid);
      const toClient = await validLogoutToken((await receiver.next()).logoutToken!, {
        keys,
        issuer: ISSUER,
        clientId: client.application.uid,
      });
      const toOther = await validLogoutToken((await otherReceiver.next()).logoutToken!, {
        keys,
        issuer: ISSUER,
        clientId: other.application.uid,
      });
      expect(toClient.sid).toBe(atClient.sid);
      expect(toOther.sid).toBe(atOther.sid);
    } finally {
      await otherReceiver.close();
    }
  });

  it('section 2.4: each logout token has its own jti', async () => {
    await signInThenLogOut(client, await op.signIn());
    const first = await validLogoutToken((await receiver.next()).logoutToken!, { keys, issuer: ISSUER, clientId: client.application.uid });
    await signInThenLogOut(client, await op.signIn());
    const second = await validLogoutToken((await receiver.next()).logoutToken!, { keys, issuer: ISSUER, clientId: client.application.uid });
    expect(second.jti).not.toBe(first.jti);
    expect(second.sid).not.toBe(first.sid);
  });

  it('section 2.4: signed like the ID tokens, with the alg the client registered (id_token_signed_response_alg ES256)', async () => {
    const es256Receiver = await backchannelReceiver();
    try {
      const es256 = await op.newClient({ backchannelLogoutUri: es256Receiver.url, idTokenSignedResponseAlg: 'ES256' });
      const agent = await op.signIn();
      const { tokens } = await suiteCodeFlow(op, {}, { agent, client: es256 });
      await agent.post('/logout', {}, '/logout');
      const { logoutToken } = await es256Receiver.next();
      expect(decodeProtectedHeader(logoutToken!).alg).toBe('ES256');
      expect(decodeProtectedHeader(logoutToken!).kid).toBe(decodeProtectedHeader(tokens.id_token).kid);
      const jwks = createLocalJWKSet(await discoveredJwks(op.server));
      await validLogoutToken(logoutToken!, { keys: jwks, issuer: ISSUER, clientId: es256.application.uid, alg: 'ES256' });
    } finally {
      await es256Receiver.close();
    }
  });

  it('section 2.3: a relying party the user had no session with is sent no logout token', async () => {
    await signInThenLogOut(client, await op.signIn());
    await receiver.next();
    expect(await bystander.nothingWithin(1_500)).toBe(true);
    expect(bystander.requests).toEqual([]);
  });
});
