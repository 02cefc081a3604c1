import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backend } from '../helpers/test-database.js';
import { buildTestServer, type TestServer } from '../helpers/test-server.js';

// An unknown path: a browser gets the end users' error page, in its language; an API client keeps the JSON error.

const BROWSER_ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8';
const NOT_FOUND_JSON = { error: 'not_found', error_description: 'No route for GET /nonexistent-page.' };

describe(`an unknown path (${backend})`, () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await buildTestServer();
  });
  afterAll(() => server.close());

  const get = (headers: Record<string, string>, url = '/nonexistent-page?x=1') => server.app.inject({ method: 'GET', url, headers });

  it("GET with a browser's Accept answers 404 with the HTML error page, translated by Accept-Language", async () => {
    const page = await get({ accept: BROWSER_ACCEPT, 'accept-language': 'de-DE,de;q=0.9,en;q=0.8' });
    expect(page.statusCode).toBe(404);
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(page.headers['cache-control']).toBe('no-store');
    expect(page.headers['content-security-policy']).toContain("frame-ancestors 'none'");
    expect(page.body).toContain('<html lang="de" dir="ltr">');
    expect(page.body).toContain('<title>Ein Fehler ist aufgetreten</title>');
    expect(page.body).toContain('<h1>Ein Fehler ist aufgetreten</h1>');
    // The description is the API's English error_description (SPEC 3.6), the path escaped, marked English (WCAG 3.1.2).
    expect(page.body).toContain('<pre lang="en">No route for GET /nonexistent-page.</pre>');

    const english = await get({ accept: 'text/html' }, '/oauth/<script>');
    expect(english.statusCode).toBe(404);
    expect(english.body).toContain('<html lang="en" dir="ltr">');
    expect(english.body).toContain('<h1>An error has occurred</h1>');
    expect(english.body).not.toContain('<script>');
  });

  it('text/html ranked above application/json (listed first, or a higher q) is a page too; HEAD of a page gets its headers', async () => {
    for (const accept of ['text/html, application/json', 'application/json;q=0.5, text/html']) {
      const page = await get({ accept });
      expect(page.statusCode, accept).toBe(404);
      expect(page.headers['content-type'], accept).toBe('text/html; charset=utf-8');
    }
    const head = await server.app.inject({ method: 'HEAD', url: '/nonexistent-page', headers: { accept: BROWSER_ACCEPT } });
    expect(head.statusCode).toBe(404);
    expect(head.headers['content-type']).toBe('text/html; charset=utf-8');
  });

  it.each([
    ['no Accept', {}],
    ['Accept: application/json', { accept: 'application/json' }],
    ['Accept: */*', { accept: '*/*' }],
    ['application/json before text/html', { accept: 'application/json, text/html' }],
    ['text/html with a lower q than application/json', { accept: 'text/html;q=0.5, application/json' }],
    ['text/html;q=0', { accept: 'text/html;q=0, */*' }],
  ])('%s keeps the JSON error exactly as before', async (_name, headers: Record<string, string>) => {
    const response = await get(headers);
    expect(response.statusCode).toBe(404);
    expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(response.json()).toEqual(NOT_FOUND_JSON);
  });

  it("the metrics listener, which serves no pages, answers a browser's unknown path in JSON", async () => {
    const response = await server.app.metricsListener!.inject({
      method: 'GET',
      url: '/nonexistent-page',
      headers: { accept: BROWSER_ACCEPT },
    });
    expect(response.statusCode).toBe(404);
    expect(response.json()).toEqual(NOT_FOUND_JSON);
  });

  it('a POST from a browser form to an unknown path is the page as well', async () => {
    const response = await server.app.inject({
      method: 'POST',
      url: '/nonexistent-form',
      headers: { accept: BROWSER_ACCEPT, 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'a=1',
    });
    expect(response.statusCode).toBe(404);
    expect(response.body).toContain('<pre>No route for POST /nonexistent-form.</pre>');
  });
});
