import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer } from '../helpers/oauth-requests.js';
import { backend } from '../helpers/test-database.js';
import { buildTestServer, type TestServer } from '../helpers/test-server.js';

// RFC 7591 section 3 and RFC 7592 section 2.2: the registration and update requests are JSON. Whatever else a
// client sends, the 415 says so, whether or not Fastify has a parser for its content type.

const BODY = JSON.stringify({ redirect_uris: ['https://a.example.com/cb'] });
const NOT_JSON = [
  'application/xml',
  'text/json',
  'multipart/form-data; boundary=x',
  'application/jsonx',
  'application/json-patch+json',
  'text/plain',
  'application/x-www-form-urlencoded',
  '',
  null,
];
const REFUSAL = { error: 'invalid_request', error_description: 'The request body must be application/json.' };

describe(`RFC 7591 and RFC 7592 request media type (${backend})`, () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await buildTestServer({ config: { registration: { policy: 'open', perAddressPerMinute: 0 } } });
  });
  afterAll(() => server.close());

  // null: no Content-Type header at all.
  const send = (method: 'POST' | 'PUT', url: string, type: string | null, headers: Record<string, string> = {}) =>
    server.app.inject({ method, url, headers: { ...(type !== null && { 'content-type': type }), ...headers }, payload: BODY });

  it('POST /oauth/register answers 415 "must be application/json" to every body that is not JSON', async () => {
    for (const type of NOT_JSON) {
      const response = await send('POST', '/oauth/register', type);
      expect({ type, status: response.statusCode, body: response.json() }).toEqual({ type, status: 415, body: REFUSAL });
    }
  });

  it('PUT /oauth/register/:client_id answers 415 "must be application/json" to every body that is not JSON', async () => {
    const client = (await send('POST', '/oauth/register', 'application/json')).json();
    for (const type of NOT_JSON) {
      const response = await send('PUT', `/oauth/register/${client.client_id}`, type, bearer(client.registration_access_token));
      expect({ type, status: response.statusCode, body: response.json() }).toEqual({ type, status: 415, body: REFUSAL });
    }
  });

  it('application/json with parameters is still JSON, and the token endpoint keeps its own 415 wording', async () => {
    expect((await send('POST', '/oauth/register', 'Application/JSON; charset=utf-8')).statusCode).toBe(201);
    const response = await send('POST', '/oauth/token', 'application/xml');
    expect({ status: response.statusCode, body: response.json() }).toEqual({
      status: 415,
      body: { error: 'invalid_request', error_description: 'The request body must be application/x-www-form-urlencoded.' },
    });
  });
});
