import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listAuditEvents } from '../../src/oauth/audit/audit-trail.js';
import { capturedLogLines } from '../helpers/log-lines.js';
import { backend } from '../helpers/test-database.js';
import { buildTestServer, type TestServer } from '../helpers/test-server.js';

// docs/operations.md "Audit trail": a client that registered itself (RFC 7591), changed or deleted itself (RFC 7592)
// is in the trail, with the address it came from, so that an admin who finds one impersonating another application can
// follow it; nothing secret is recorded (neither its secret nor its registration access token).

const CALLBACK = 'https://rp.example/cb';
const JSON_HEADERS = { 'content-type': 'application/json' };

describe(`self-registration in the audit trail (${backend})`, () => {
  let server: TestServer;
  const log = capturedLogLines();
  beforeAll(async () => {
    server = await buildTestServer({
      config: {
        registration: { policy: 'open', perAddressPerMinute: 0 },
        defaultScopes: ['read'],
        rateLimit: { enabled: false },
        log: { level: 'info', format: 'json' },
      },
      logStream: log.stream,
    });
  });
  afterAll(() => server.close());

  it('records client.created (anonymous), client.updated and client.deleted (the client), each with the address, no secret', async () => {
    const registered = await server.app.inject({
      method: 'POST',
      url: '/oauth/register',
      headers: JSON_HEADERS,
      payload: { redirect_uris: [CALLBACK], client_name: 'Acme Notes' },
      remoteAddress: '203.0.113.7',
    });
    expect(registered.statusCode, registered.body).toBe(201);
    const client = registered.json();
    const manage = (method: 'PUT' | 'DELETE', token: string, payload?: object) =>
      server.app.inject({
        method,
        url: `/oauth/register/${client.client_id}`,
        headers: { ...(payload && JSON_HEADERS), authorization: `Bearer ${token}` },
        ...(payload && { payload }),
        remoteAddress: '203.0.113.8',
      });
    const updated = await manage('PUT', client.registration_access_token, {
      client_id: client.client_id,
      client_secret: client.client_secret,
      redirect_uris: [CALLBACK],
      client_name: 'Acme Notes 2',
    });
    expect(updated.statusCode, updated.body).toBe(200);
    expect((await manage('DELETE', updated.json().registration_access_token)).statusCode).toBe(204);

    // And an event line each, as an admin's change of an application has (docs/operations.md "Logs").
    const lines = log.lines.filter((line) => typeof line.event === 'string' && line.event.startsWith('application.'));
    expect(lines.map(({ event, clientId, via }) => ({ event, clientId, via }))).toEqual([
      { event: 'application.created', clientId: client.client_id, via: 'rfc7591' },
      { event: 'application.updated', clientId: client.client_id, via: 'rfc7592' },
      { event: 'application.deleted', clientId: client.client_id, via: 'rfc7592' },
    ]);

    const events = await listAuditEvents(server.deps, { clientId: client.client_id, limit: 10 });
    expect(events.map(({ type, actor, ip, subjectId, details }) => ({ type, actor, ip, subjectId, details })).reverse()).toEqual([
      {
        type: 'client.created',
        actor: 'anonymous',
        ip: '203.0.113.7',
        subjectId: client.client_id,
        details: { via: 'rfc7591', name: 'Acme Notes', redirect_uris: [CALLBACK], initial_access_token: false },
      },
      {
        type: 'client.updated',
        actor: `client:${client.client_id}`,
        ip: '203.0.113.8',
        subjectId: client.client_id,
        details: { via: 'rfc7592', name: 'Acme Notes 2', redirect_uris: [CALLBACK] },
      },
      {
        type: 'client.deleted',
        actor: `client:${client.client_id}`,
        ip: '203.0.113.8',
        subjectId: client.client_id,
        details: { via: 'rfc7592', name: 'Acme Notes 2' },
      },
    ]);
    const stored = JSON.stringify(events);
    expect(stored).not.toContain(client.client_secret);
    expect(stored).not.toContain(client.registration_access_token);
  });
});
