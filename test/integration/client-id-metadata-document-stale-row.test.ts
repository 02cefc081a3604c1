import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UidTaken, type ApplicationRecord } from '../../src/oauth/clients/application-store.js';
import { documentAdmission } from '../../src/oauth/clients/metadata-documents/client-metadata-document-admission.js';
import type { DocumentClient } from '../../src/oauth/clients/metadata-documents/client-metadata-document.js';
import { backend } from '../helpers/test-database.js';
import { buildTestServer, type TestServer } from '../helpers/test-server.js';
import { createFromMetadataDocument } from './applications-self-registered-support.js';

// Issue 29 item 5: a document client that expired unused is replaced by a new row when its client_id is fetched
// again. Which row expired is judged from a record that may come from this instance's cache, so the row another
// instance used or an admin approved meanwhile must survive: the delete is conditional, under the registration lock.

const LATER = () => new Date(Date.now() + 2 * 3600_000); // past the default unusedClientLifetimeSeconds (1 hour)

const documentClient = (row: ApplicationRecord): DocumentClient => ({
  name: row.name,
  secret: null,
  redirectUris: row.redirectUris,
  scopes: [],
  confidential: false,
  registeredBy: 'metadata_document',
  tokenEndpointAuthMethod: 'none',
  grantTypes: ['authorization_code'],
  metadataExpiresAt: LATER(),
});

describe(`a document client that looked expired unused (${backend})`, () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await buildTestServer();
  });
  afterAll(() => server.close());

  const admission = () => documentAdmission(server.deps.stores, { config: server.config, now: LATER });

  it('issue 29 item 5 (RFC 7591 section 3): is kept when the database says it was used meanwhile; the new row is UidTaken', async () => {
    const row = await createFromMetadataDocument(server.deps, { uid: 'https://used.example/meta.json' });
    await server.deps.stores.applications.markUsed(row.id, new Date());
    await expect(admission().store(row.uid, documentClient(row), row)).rejects.toBeInstanceOf(UidTaken);
    expect(await server.deps.stores.applications.findById(row.id)).toMatchObject({ uid: row.uid, usedAt: expect.any(Date) });
  });

  it('issue 29 item 5 (RFC 7591 section 3): is replaced by a new row when it still is expired and unused', async () => {
    const row = await createFromMetadataDocument(server.deps, { uid: 'https://unused.example/meta.json' });
    const made = await admission().store(row.uid, documentClient(row), row);
    expect(made).toMatchObject({ uid: row.uid });
    expect((made as ApplicationRecord).id).not.toBe(row.id);
    expect(await server.deps.stores.applications.findById(row.id)).toBeNull();
  });
});
