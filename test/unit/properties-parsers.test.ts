import Fastify, { type FastifyInstance } from 'fastify';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formsPlugin, MAX_FORM_PARAMETERS } from '../../src/http/plugins/forms.js';
import { extractClientCredentials } from '../../src/oauth/clients/client-credentials.js';
import { InvalidRequest } from '../../src/oauth/errors.js';
import { readParameters } from '../../src/oauth/request-parameters.js';

// Properties of the parsers between the wire and the domain (SPEC 3: no input makes any endpoint answer 500;
// a repeated or nested parameter is invalid_request). test/unit/properties.test.ts has the URI, PKCE and scope
// rules and "extractClientCredentials throws nothing but OAuthError"; these are the round trips and limits.

const text = fc.string({ unit: 'grapheme', maxLength: 40 });
const rawText = fc.string({ unit: 'binary', maxLength: 200 });
const name = fc.string({ unit: 'grapheme-ascii', minLength: 1, maxLength: 12 }).filter((n) => !n.includes('[') && n !== '__proto__');

describe('form parsing limits (src/http/plugins/forms.ts, through a bare Fastify app)', () => {
  let app: FastifyInstance;
  beforeAll(async () => {
    app = Fastify();
    await app.register(formsPlugin);
    app.post('/echo', async (request) => ({ body: request.body }));
    await app.ready();
  });
  afterAll(() => app.close());

  const echo = (payload: string) =>
    app.inject({ method: 'POST', url: '/echo', headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload });

  it(`up to ${MAX_FORM_PARAMETERS} distinct parameters round-trip exactly (application/x-www-form-urlencoded)`, async () => {
    await fc.assert(
      fc.asyncProperty(fc.uniqueArray(fc.tuple(name, text), { maxLength: MAX_FORM_PARAMETERS, selector: ([n]) => n }), async (pairs) => {
        const response = await echo(new URLSearchParams(pairs).toString());
        expect(response.statusCode).toBe(200);
        expect(response.json().body).toEqual(Object.fromEntries(pairs));
      }),
      { numRuns: 150 },
    );
  });

  it('a repeated parameter arrives as an array, so the routes can refuse it (SPEC 3)', async () => {
    await fc.assert(
      fc.asyncProperty(name, fc.array(text, { minLength: 2, maxLength: 5 }), async (key, values) => {
        const response = await echo(new URLSearchParams(values.map((value): [string, string] => [key, value])).toString());
        expect(response.json().body[key]).toEqual(values);
      }),
      { numRuns: 100 },
    );
  });

  it(`any body parses without a server error into at most ${MAX_FORM_PARAMETERS} parameters of strings or string arrays`, async () => {
    const manyPairs = fc
      .array(fc.tuple(name, text), { minLength: 90, maxLength: 300 })
      .map((pairs) => new URLSearchParams(pairs).toString());
    await fc.assert(
      fc.asyncProperty(fc.oneof(rawText, manyPairs), async (payload) => {
        const response = await echo(payload);
        expect(response.statusCode).toBeLessThan(500);
        if (response.statusCode !== 200) return;
        const body = response.json().body as Record<string, unknown>;
        expect(Object.keys(body).length).toBeLessThanOrEqual(MAX_FORM_PARAMETERS);
        for (const value of Object.values(body)) expect([value].flat().every((item) => typeof item === 'string')).toBe(true);
      }),
      { numRuns: 200 },
    );
  });
});

describe('readParameters (src/oauth/request-parameters.ts)', () => {
  const query = fc.option(fc.dictionary(fc.constantFrom('client_id', 'client_secret', 'code', 'x'), fc.anything()), { nil: undefined });

  it('throws nothing but InvalidRequest, and what it returns is flat strings without NUL', () => {
    fc.assert(
      fc.property(fc.oneof(fc.anything(), fc.dictionary(fc.string(), fc.oneof(fc.string(), fc.array(fc.string())))), query, (body, q) => {
        try {
          const parameters = readParameters(body, q);
          for (const [key, value] of Object.entries(parameters)) {
            expect(typeof value).toBe('string');
            expect(value).not.toContain('\u0000');
            expect(key.indexOf('[')).toBeLessThanOrEqual(0);
          }
        } catch (error) {
          expect(error).toBeInstanceOf(InvalidRequest);
        }
      }),
      { numRuns: 2000 },
    );
  });

  it('rejects every body holding an array (a repeated parameter) or a nested name, and credentials in the query', () => {
    fc.assert(
      fc.property(fc.dictionary(name, fc.string()), name, fc.array(fc.string(), { minLength: 0, maxLength: 3 }), (body, key, values) => {
        expect(() => readParameters({ ...body, [key]: values }, undefined)).toThrow(InvalidRequest);
        expect(() => readParameters({ ...body, [`${key}[x]`]: 'v' }, undefined)).toThrow(InvalidRequest);
        expect(() => readParameters(body, { client_secret: 's' })).toThrow(InvalidRequest);
      }),
    );
  });

  it('returns a flat body of strings exactly as sent', () => {
    fc.assert(
      fc.property(
        fc.dictionary(
          name,
          fc.string().filter((v) => !v.includes('\u0000')),
        ),
        (body) => {
          expect(readParameters(body, { code: 'x' })).toEqual(body);
        },
      ),
    );
  });
});

describe('HTTP Basic client credentials (RFC 6749 section 2.3.1 and appendix B)', () => {
  // Appendix B: form-urlencode (space as "+"), join with ":", base64 (RFC 7617).
  const formEncode = (value: string) => encodeURIComponent(value).replace(/%20/g, '+');
  const encoders: Array<(value: string) => string> = [formEncode, (value) => new URLSearchParams([['', value]]).toString().slice(1)];
  const wellFormed = fc.string({ unit: 'grapheme', maxLength: 60 });

  it('decoding an encoded id and secret gives back the same id and secret (an empty secret: none)', () => {
    fc.assert(
      fc.property(
        wellFormed.filter((id) => id !== '' && !id.includes('\u0000')),
        wellFormed,
        fc.constantFrom(...encoders),
        fc.constantFrom('Basic', 'basic', 'BASIC'),
        (id, secret, encode, scheme) => {
          const authorization = `${scheme} ${Buffer.from(`${encode(id)}:${encode(secret)}`, 'utf8').toString('base64')}`;
          expect(extractClientCredentials({ authorization, body: {}, address: '::1' })).toEqual({
            method: 'client_secret_basic',
            clientId: id,
            secret: secret === '' ? null : secret,
            address: '::1',
          });
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('a body client_id equal to the Basic id is accepted; any other is invalid_request (SPEC 8)', () => {
    fc.assert(
      fc.property(
        wellFormed.filter((id) => id.trim() !== '' && !id.includes('\u0000')),
        wellFormed.filter((other) => other !== ''),
        (id, other) => {
          const authorization = `Basic ${Buffer.from(`${formEncode(id)}:secret`).toString('base64')}`;
          expect(extractClientCredentials({ authorization, body: { client_id: id }, address: '::1' })?.clientId).toBe(id);
          if (other !== id)
            expect(() => extractClientCredentials({ authorization, body: { client_id: other }, address: '::1' })).toThrow(InvalidRequest);
        },
      ),
    );
  });
});
