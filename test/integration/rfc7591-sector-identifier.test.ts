import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  documentServer,
  documentSettings,
  json,
  selfSignedCertificate,
  type DocumentServer,
} from '../helpers/client-metadata-document-server.js';
import { createClient, createUser, signedIn, type UserAgent } from '../helpers/end-user.js';
import { CALLBACK, codeFlow, openIdServer, verifiedIdToken } from '../helpers/openid.js';
import { DEVICE_CODE_GRANT } from '../../src/oauth/device/device-code-grant-type.js';
import { backend } from '../helpers/test-database.js';
import { buildTestServer, type TestServer } from '../helpers/test-server.js';

// Issue 31 item 3 at registration: OpenID Connect Registration 1.0 section 2's subject_type and sector_identifier_uri,
// validated as Core 1.0 section 8.1 says: the URI is https, fetched under the metadata-document fetcher's SSRF rules,
// and its JSON array lists every redirect URI; its host is the sector, shared by the clients that name it.

const SALT = 'pairwise-salt-for-registration-tests-0123456789';
const JSON_HEADERS = { 'content-type': 'application/json' };
const REGISTRATION = { policy: 'open' as const, perAddressPerMinute: 0, maxOpenRegistrations: 100 };
const OTHER = 'https://app.example.net/callback';

describe(`OpenID Connect Registration 1.0 section 2 subject_type and sector_identifier_uri (${backend})`, () => {
  let server: TestServer;
  let strict: TestServer;
  let documents: DocumentServer;
  const tls = selfSignedCertificate();
  beforeAll(async () => {
    documents = await documentServer(tls);
    server = await openIdServer({
      config: {
        openid: { enabled: true, pairwiseSalt: SALT },
        // Development only: the document server is on loopback (allowPrivateAddresses; Client ID Metadata Documents off).
        registration: { ...REGISTRATION, clientIdMetadataDocuments: documentSettings({ enabled: false }) },
      },
      clientMetadataDocumentCa: tls.cert,
    });
    // The production rules, and no salt.
    strict = await openIdServer({ config: { registration: REGISTRATION }, clientMetadataDocumentCa: tls.cert });
  });
  afterAll(async () => {
    await strict.close();
    await server.close();
    await documents.close();
  });

  const register = (payload: object, on = server) =>
    on.app.inject({ method: 'POST', url: '/oauth/register', headers: JSON_HEADERS, payload: { scope: 'openid', ...payload } });
  const refused = async (payload: object, description: string, on = server) => {
    const response = await register(payload, on);
    expect(response.statusCode, response.body).toBe(400);
    expect(response.json()).toEqual({ error: 'invalid_client_metadata', error_description: description });
  };
  let paths = 0;
  /** A path on the document server answering `handler`, and its https URL. */
  const sectorDocument = (body: unknown) => {
    const path = `/sector-${++paths}.json`;
    documents.serve(path, json(body));
    return `${documents.origin}${path}`;
  };

  it('section 2: subject_type defaults to public and is answered with the metadata', async () => {
    const response = await register({ redirect_uris: [CALLBACK] });
    expect(response.statusCode, response.body).toBe(201);
    expect(response.json().subject_type).toBe('public');
    expect(response.json().sector_identifier_uri).toBeUndefined();
  });

  it('Core 8.1: a pairwise client without a sector_identifier_uri needs its redirect URIs on one host', async () => {
    const oneHost = await register({ redirect_uris: [CALLBACK, 'https://client.example.com/other'], subject_type: 'pairwise' });
    expect(oneHost.statusCode, oneHost.body).toBe(201);
    expect(oneHost.json().subject_type).toBe('pairwise');
    expect((await server.deps.stores.applications.findByUid(oneHost.json().client_id))!.subjectType).toBe('pairwise');
    await refused(
      { redirect_uris: [CALLBACK, OTHER], subject_type: 'pairwise' },
      'A pairwise application needs its redirect URIs on one host (its sector, OpenID Connect Core 8.1), or a sector_identifier_uri.',
    );
  });

  it('Core 8.1, Registration 1.0 section 2: a pairwise native app on a loopback host needs a sector_identifier_uri (every native app shares the host)', async () => {
    for (const [host, redirect] of <Array<[string, string]>>[
      ['127.0.0.1', 'http://127.0.0.1/cb'],
      ['[::1]', 'http://[::1]/cb'],
      ['localhost', 'http://localhost/cb'],
    ]) {
      await refused(
        { redirect_uris: [redirect], application_type: 'native', subject_type: 'pairwise' },
        `A pairwise application whose redirect URIs are on the loopback host ${host} needs a sector_identifier_uri: every native app shares that host, and a sector (OpenID Connect Core 8.1, Registration 2) must be the application's own.`,
      );
    }
    const uri = sectorDocument(['http://127.0.0.1/cb']);
    const own = await register({
      redirect_uris: ['http://127.0.0.1/cb'],
      application_type: 'native',
      subject_type: 'pairwise',
      sector_identifier_uri: uri,
    });
    expect(own.statusCode, own.body).toBe(201);
    expect(own.json()).toMatchObject({ subject_type: 'pairwise', sector_identifier_uri: uri });
  });

  it('Core 8.1: a sector_identifier_uri listing every redirect URI is fetched once, stored and answered', async () => {
    const uri = sectorDocument([CALLBACK, OTHER, 'https://unused.example/cb']);
    const before = documents.requests.length;
    const response = await register({ redirect_uris: [CALLBACK, OTHER], subject_type: 'pairwise', sector_identifier_uri: uri });
    expect(response.statusCode, response.body).toBe(201);
    expect(response.json()).toMatchObject({ subject_type: 'pairwise', sector_identifier_uri: uri });
    expect(documents.requests.length).toBe(before + 1);
    expect((await server.deps.stores.applications.findByUid(response.json().client_id))!.sectorIdentifierUri).toBe(uri);
  });

  it('Core 8.1: a document that does not list a redirect URI is refused, naming it', async () => {
    await refused(
      { redirect_uris: [CALLBACK, OTHER], subject_type: 'pairwise', sector_identifier_uri: sectorDocument([CALLBACK]) },
      `The sector_identifier_uri document does not list the redirect URI ${OTHER} (OpenID Connect Core 8.1: it must list every one).`,
    );
  });

  it('a document that is not a JSON array, or not there, is refused with what went wrong', async () => {
    const base = { redirect_uris: [CALLBACK], subject_type: 'pairwise' };
    await refused(
      { ...base, sector_identifier_uri: sectorDocument({ redirect_uris: [CALLBACK] }) },
      'The sector_identifier_uri could not be used: the document is not a JSON array.',
    );
    await refused(
      { ...base, sector_identifier_uri: `${documents.origin}/missing.json` },
      'The sector_identifier_uri could not be used: the URL answered status 404.',
    );
  });

  it('Registration 1.0 section 2: the URI must be https (never fetched otherwise), without credentials or fragment', async () => {
    const before = documents.requests.length;
    const base = { redirect_uris: [CALLBACK], subject_type: 'pairwise' };
    await refused(
      { ...base, sector_identifier_uri: 'http://sector.example/redirects.json' },
      'sector_identifier_uri must use the https scheme.',
    );
    await refused({ ...base, sector_identifier_uri: 'redirects.json' }, 'sector_identifier_uri must be an absolute https URL.');
    await refused({ ...base, sector_identifier_uri: 42 }, 'sector_identifier_uri must be a string.');
    await refused(
      { ...base, sector_identifier_uri: 'https://user:pw@sector.example/r.json' },
      'sector_identifier_uri must not hold credentials or a fragment.',
    );
    await refused({ ...base, subject_type: 'ppid' }, 'subject_type: "ppid" is not supported.');
    expect(documents.requests.length).toBe(before);
  });

  it("the metadata-document fetcher's SSRF rules: a loopback sector_identifier_uri is never fetched", async () => {
    const before = documents.requests.length;
    const uri = sectorDocument([CALLBACK]).replace('localhost', '127.0.0.1');
    await refused(
      { redirect_uris: [CALLBACK], sector_identifier_uri: uri },
      'The sector_identifier_uri could not be used: its host is at an address this server does not fetch from (address not allowed).',
      strict,
    );
    expect(documents.requests.length).toBe(before);
  });

  it('without openid.pairwiseSalt a pairwise registration is refused, naming what is missing', async () => {
    await refused(
      { redirect_uris: [CALLBACK], subject_type: 'pairwise' },
      'Pairwise subject identifiers need OpenID Connect (openid.enabled) and a salt (openid.pairwiseSalt, env PAIRWISE_SALT).',
      strict,
    );
  });

  it('RFC 7591 section 2: with OpenID Connect off, subject_type and sector_identifier_uri are ignored: nothing fetched, nothing refused, the client public', async () => {
    const off = await buildTestServer({
      config: {
        openid: { enabled: false, pairwiseSalt: SALT },
        registration: { ...REGISTRATION, clientIdMetadataDocuments: documentSettings({ enabled: false }) },
      },
      clientMetadataDocumentCa: tls.cert,
    });
    try {
      const before = documents.requests.length;
      for (const metadata of [
        // A document that does not list the redirect URI, and one that is not there: either is refused while OpenID Connect is on.
        { subject_type: 'pairwise', sector_identifier_uri: sectorDocument([OTHER]) },
        { subject_type: 'pairwise', sector_identifier_uri: `${documents.origin}/missing.json` },
        { subject_type: 'ppid', sector_identifier_uri: 42 },
      ]) {
        const response = await register({ redirect_uris: [CALLBACK], scope: 'read', ...metadata }, off);
        expect(response.statusCode, response.body).toBe(201);
        expect(response.json().sector_identifier_uri).toBeUndefined();
        const stored = (await off.deps.stores.applications.findByUid(response.json().client_id))!;
        expect(stored).toMatchObject({ subjectType: 'public', sectorIdentifierUri: null });
      }
      expect(documents.requests.length).toBe(before);
    } finally {
      await off.close();
    }
  });

  // Core 2 and 8: the sub a client is told for a user never changes. Were the type or the sector free to change, a
  // stranger's client would read, with a token it holds, another sector's subs (or the user's own subject) in turn.
  it("RFC 7592 section 2.2: an update may change neither subject_type nor a pairwise client's sector", async () => {
    const uri = sectorDocument([CALLBACK]);
    let created = (await register({ redirect_uris: [CALLBACK], subject_type: 'pairwise', sector_identifier_uri: uri })).json();
    const put = async (payload: object) => {
      const response = await server.app.inject({
        method: 'PUT',
        url: `/oauth/register/${created.client_id}`,
        headers: { ...JSON_HEADERS, authorization: `Bearer ${created.registration_access_token}` },
        payload: { client_id: created.client_id, scope: 'openid', ...payload },
      });
      if (response.statusCode === 200) created = { ...created, ...response.json() };
      return response;
    };
    const made = async (payload: object, status: number, description?: string) => {
      const response = await put(payload);
      expect(response.statusCode, response.body).toBe(status);
      if (description !== undefined) expect(response.json()).toEqual({ error: 'invalid_client_metadata', error_description: description });
    };
    await made(
      { redirect_uris: [CALLBACK] },
      400,
      'subject_type cannot change from pairwise: the sub a client is told for a user never changes (OpenID Connect Core 8); register a new client.',
    );
    const otherHost =
      "A pairwise client's sector cannot change: its redirect URIs must stay on localhost (or its sector_identifier_uri there); register a new client for another.";
    await made({ redirect_uris: [OTHER], subject_type: 'pairwise' }, 400, otherHost);
    // The same sector by another way (its redirect URIs' one host is the document's host here) keeps the sub: allowed.
    await made({ redirect_uris: [CALLBACK], subject_type: 'pairwise', sector_identifier_uri: uri }, 200);
    expect(await server.deps.stores.applications.findByUid(created.client_id)).toMatchObject({
      subjectType: 'pairwise',
      sectorIdentifierUri: uri,
    });
    const publicClient = (await register({ redirect_uris: [CALLBACK] })).json();
    const made2 = await server.app.inject({
      method: 'PUT',
      url: `/oauth/register/${publicClient.client_id}`,
      headers: { ...JSON_HEADERS, authorization: `Bearer ${publicClient.registration_access_token}` },
      payload: { client_id: publicClient.client_id, scope: 'openid', redirect_uris: [CALLBACK], subject_type: 'pairwise' },
    });
    expect(made2.json()).toEqual({
      error: 'invalid_client_metadata',
      error_description:
        'subject_type cannot change from public: the sub a client is told for a user never changes (OpenID Connect Core 8); register a new client.',
    });
  });

  it("Core 8.1: a pairwise client cannot register the device grant (its redirect URIs, its sector's proof, are never used)", async () => {
    const device = await openIdServer({
      config: {
        grantFlows: ['authorization_code', 'refresh_token', DEVICE_CODE_GRANT],
        openid: { enabled: true, pairwiseSalt: SALT },
        registration: { ...REGISTRATION, allowedGrantTypes: ['authorization_code', 'refresh_token', DEVICE_CODE_GRANT] },
      },
    });
    try {
      const grantTypes = ['authorization_code', DEVICE_CODE_GRANT];
      await refused(
        { redirect_uris: [CALLBACK], subject_type: 'pairwise', grant_types: grantTypes, token_endpoint_auth_method: 'none' },
        'A pairwise client cannot register the device grant: its redirect URIs, which name its sector, are never used by that grant, so they would prove nothing (OpenID Connect Core 8.1).',
        device,
      );
      const publicOne = await register({ redirect_uris: [CALLBACK], grant_types: grantTypes, token_endpoint_auth_method: 'none' }, device);
      expect(publicOne.statusCode, publicOne.body).toBe(201);
    } finally {
      await device.close();
    }
  });

  describe('Core 8.1: the sector decides the sub', () => {
    let agent: UserAgent;
    beforeAll(async () => {
      const user = await createUser(server.deps, 'sector-user');
      agent = await signedIn(server.app, user.username);
    });

    const subOf = async (client: { application: { uid: string }; plainSecret: string | null }) => {
      const application = (await server.deps.stores.applications.findByUid(client.application.uid))!;
      const { response } = await codeFlow(server, agent, { application, plainSecret: client.plainSecret });
      expect(response.statusCode, response.body).toBe(200);
      return (await verifiedIdToken(server, response.json().id_token, application.uid)).sub;
    };
    const registered = async (payload: object) => {
      const body = (await register({ redirect_uris: [CALLBACK], subject_type: 'pairwise', ...payload })).json();
      return { application: { uid: body.client_id as string }, plainSecret: body.client_secret as string };
    };

    it("clients naming one sector_identifier_uri host share the user's sub; the redirect URI's host is another sector", async () => {
      const first = await registered({ redirect_uris: [CALLBACK, OTHER], sector_identifier_uri: sectorDocument([CALLBACK, OTHER]) });
      const second = await registered({ sector_identifier_uri: sectorDocument([CALLBACK]) });
      const byRedirect = await registered({});
      const sectorSub = await subOf(first);
      expect(await subOf(second)).toBe(sectorSub);
      const hostSub = await subOf(byRedirect);
      expect(hostSub).not.toBe(sectorSub);
      // An admin's pairwise client on the same redirect host is in byRedirect's sector.
      expect(await subOf(await createClient(server.deps, { subjectType: 'pairwise', scopes: 'openid' }))).toBe(hostSub);
    });
  });
});
