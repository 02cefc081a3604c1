import { describe, expect, it } from 'vitest';
import { cacheSeconds, clientIdUrlProblem } from '../../src/oauth/clients/metadata-documents/client-metadata-document.js';

// draft-ietf-oauth-client-id-metadata-document: which client_id values are document URLs, and how long a fetched
// document is used (RFC 9111 freshness, bounded by maxCacheSeconds).

const NOW = new Date('2026-11-25T12:00:00Z');
const headers = (values: Partial<Record<'cacheControl' | 'expires' | 'date' | 'age', string>>) => ({
  cacheControl: values.cacheControl ?? null,
  expires: values.expires ?? null,
  date: values.date ?? null,
  age: values.age ?? null,
});

describe('cacheSeconds', () => {
  it('takes max-age, less Age, and ignores s-maxage', () => {
    expect(cacheSeconds(headers({ cacheControl: 'max-age=300' }), NOW, 86400)).toBe(300);
    expect(cacheSeconds(headers({ cacheControl: 'public, s-maxage=9000, max-age="120"' }), NOW, 86400)).toBe(120);
    expect(cacheSeconds(headers({ cacheControl: 'max-age=300', age: '100' }), NOW, 86400)).toBe(200);
    expect(cacheSeconds(headers({ cacheControl: 's-maxage=9000' }), NOW, 86400)).toBe(60);
  });

  it('no-store, no-cache, max-age=0 and a malformed max-age mean fetching again when next needed', () => {
    for (const cacheControl of ['no-store', 'no-cache', 'max-age=0, public', 'max-age=300, no-store', 'max-age=soon']) {
      expect(cacheSeconds(headers({ cacheControl }), NOW, 86400), cacheControl).toBe(0);
    }
  });

  it('falls back to Expires against Date (or now), an invalid Expires being already expired', () => {
    const date = 'Wed, 25 Nov 2026 11:00:00 GMT';
    expect(cacheSeconds(headers({ expires: 'Wed, 25 Nov 2026 11:10:00 GMT', date }), NOW, 86400)).toBe(600);
    expect(cacheSeconds(headers({ expires: 'Wed, 25 Nov 2026 12:05:00 GMT' }), NOW, 86400)).toBe(300);
    expect(cacheSeconds(headers({ expires: '0' }), NOW, 86400)).toBe(0);
    expect(cacheSeconds(headers({ cacheControl: 'max-age=30', expires: 'Wed, 25 Nov 2026 13:00:00 GMT' }), NOW, 86400)).toBe(30);
  });

  it('uses 60 seconds when nothing is said, and never more than maxCacheSeconds', () => {
    expect(cacheSeconds(headers({}), NOW, 86400)).toBe(60);
    expect(cacheSeconds(headers({}), NOW, 10)).toBe(10);
    expect(cacheSeconds(headers({ cacheControl: 'max-age=31536000' }), NOW, 86400)).toBe(86400);
  });
});

describe('clientIdUrlProblem', () => {
  it('accepts https URLs with a path, a port or a query', () => {
    for (const url of [
      'https://app.example.com/client.json',
      'https://app.example.com:8443/oauth/client',
      'https://app.example.com/c?v=1',
      `https://app.example.com/${'c'.repeat(2000)}`,
    ]) {
      expect(clientIdUrlProblem(url, false), url).toBeNull();
    }
  });

  it('refuses what the draft forbids, and URLs that parsing would rewrite (never normalised, section 3)', () => {
    const cases: Array<[string, string]> = [
      ['app.example.com/client.json', 'is not a URL'],
      ['http://app.example.com/client.json', 'is not an https URL'],
      ['https://app.example.com', 'is not in normalised form (dot segments, case, default port or escaping)'],
      ['https://app.example.com/', 'has no path'],
      ['https://user:pw@app.example.com/client.json', 'holds a user name or password'],
      ['https://app.example.com/client.json#frag', 'holds a fragment'],
      ['https://app.example.com/a/../client.json', 'is not in normalised form (dot segments, case, default port or escaping)'],
      ['https://App.example.com/client.json', 'is not in normalised form (dot segments, case, default port or escaping)'],
      ['https://app.example.com:443/client.json', 'is not in normalised form (dot segments, case, default port or escaping)'],
      [`https://app.example.com/${'c'.repeat(2030)}`, 'is longer than 2048 characters'],
    ];
    for (const [url, problem] of cases) expect(clientIdUrlProblem(url, false), url).toBe(problem);
  });

  it('accepts http only where private addresses are allowed (development)', () => {
    expect(clientIdUrlProblem('http://127.0.0.1:3000/client.json', true)).toBeNull();
  });
});
