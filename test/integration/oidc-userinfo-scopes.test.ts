import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApplicationRecord, UserRecord } from '../../src/oauth/store.js';
import { backend } from '../helpers/test-database.js';
import { createClient, createUser } from '../helpers/factories.js';
import { buildTestServer, type TestServer } from '../helpers/test-server.js';
import { ALICE_PROFILE_CLAIMS } from '../helpers/user-claims.js';
import { bearer, OPENID_ENV, setUserColumns, userToken } from './oidc-userinfo-support.js';

// OpenID Connect Core 1.0 section 5.4 through UserInfo (conformance modules oidcc-scope-profile, -email,
// -address, -phone, -all): each scope gives its claims and only those; claims without a value are absent.

const PROFILE = ALICE_PROFILE_CLAIMS;
const EMAIL = { email: 'alice@example.com', email_verified: true };
const ADDRESS = { address: { street_address: '1 Christ Church', locality: 'Oxford', postal_code: 'OX1 1DP', country: 'UK' } };
const PHONE = { phone_number: '+44 1865 000000', phone_number_verified: false };
const PROFILE_UPDATED_AT = new Date(Date.UTC(2026, 10, 1, 9, 30, 0));

describe(`UserInfo claims by scope (${backend})`, () => {
  let server: TestServer;
  let application: ApplicationRecord;
  let alice: UserRecord;
  let bare: UserRecord;

  beforeAll(async () => {
    server = await buildTestServer({ config: { openid: { enabled: true } }, env: OPENID_ENV });
    application = (await createClient(server.deps)).application;
    alice = await createUser(server.deps);
    await setUserColumns(server, alice, {
      ...PROFILE,
      ...EMAIL,
      ...PHONE,
      address: JSON.stringify({ ...ADDRESS.address, unknown_member: 'dropped' }),
      profile_updated_at: PROFILE_UPDATED_AT,
    });
    bare = await createUser(server.deps);
  });
  afterAll(() => server.close());

  const claims = async (user: UserRecord, scopes: string[]) => {
    const response = await server.app.inject({
      method: 'GET',
      url: '/oauth/userinfo',
      headers: bearer(await userToken(server, application, user, scopes)),
    });
    expect(response.statusCode).toBe(200);
    return response.json();
  };
  const updated_at = PROFILE_UPDATED_AT.getTime() / 1000;

  it('openid alone: sub only (the stable subject, not the user name)', async () => {
    expect(await claims(alice, ['openid'])).toEqual({ sub: alice.subject });
  });

  it('profile: the profile claims and updated_at (epoch seconds)', async () => {
    expect(await claims(alice, ['openid', 'profile'])).toEqual({ sub: alice.subject, ...PROFILE, updated_at });
  });

  it('email: email and email_verified', async () => {
    expect(await claims(alice, ['openid', 'email'])).toEqual({ sub: alice.subject, ...EMAIL });
  });

  it('address: the Core 5.1.1 object, only its known members', async () => {
    expect(await claims(alice, ['openid', 'address'])).toEqual({ sub: alice.subject, ...ADDRESS });
  });

  it('phone: phone_number and phone_number_verified', async () => {
    expect(await claims(alice, ['openid', 'phone'])).toEqual({ sub: alice.subject, ...PHONE });
  });

  it('all scopes, in any order: every claim', async () => {
    const all = { sub: alice.subject, ...PROFILE, updated_at, ...EMAIL, ...ADDRESS, ...PHONE };
    expect(await claims(alice, ['openid', 'profile', 'email', 'address', 'phone'])).toEqual(all);
    expect(await claims(alice, ['phone', 'address', 'openid', 'email', 'profile'])).toEqual(all);
  });

  it('a user without claims: sub and updated_at, no nulls, no verified flags without a value', async () => {
    expect(await claims(bare, ['openid', 'profile', 'email', 'address', 'phone'])).toEqual({
      sub: bare.subject,
      updated_at: expect.any(Number),
    });
  });

  it('a corrupt address is left out, the rest answered', async () => {
    const corrupt = await createUser(server.deps);
    await setUserColumns(server, corrupt, { address: '{"street_address": "unterminated', email: 'c@example.com' });
    expect(await claims(corrupt, ['openid', 'address', 'email'])).toEqual({
      sub: corrupt.subject,
      email: 'c@example.com',
      email_verified: false,
    });
  });
});
