// A browser without a browser for the issue-37 tests: fetch with a cookie jar per origin, following redirects one by
// one across the product and the upstream, and submitting node-oidc-provider's dev login and consent forms.

export interface Page {
  url: string;
  status: number;
  body: string;
}

export interface FetchBrowser {
  /** GETs `url` and follows redirects to the page they end at. */
  open(url: string): Promise<Page>;
  /** POSTs a form to `url` and follows redirects. */
  submit(url: string, fields: Record<string, string>): Promise<Page>;
  /** The first redirect's Location of a GET, not followed (e.g. to edit the authorization request sent upstream). */
  redirectOf(url: string): Promise<string>;
  /** The Cookie header it sends to `url` (to replay its session at another server on the same database). */
  cookieHeader(url: string): string;
  /** POSTs JSON as public/passkeys.js does (the CSRF token in x-csrf-token); the answer, not followed. */
  postJson(url: string, body: object, csrfToken: string): Promise<{ status: number; json: Record<string, unknown> }>;
}

export function fetchBrowser(): FetchBrowser {
  const jars = new Map<string, Map<string, string>>();
  const jarOf = (url: URL) => jars.get(url.origin) ?? jars.set(url.origin, new Map()).get(url.origin)!;

  const cookieHeader = (url: URL) => [...jarOf(url)].map(([name, value]) => `${name}=${value}`).join('; ');

  async function send(url: URL, init: RequestInit): Promise<Response> {
    const jar = jarOf(url);
    const cookie = cookieHeader(url);
    const response = await fetch(url, { ...init, redirect: 'manual', headers: { ...(init.headers as object), ...(cookie && { cookie }) } });
    for (const line of response.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const at = pair!.indexOf('=');
      const [name, value] = [pair!.slice(0, at).trim(), pair!.slice(at + 1).trim()];
      if (value === '' || /max-age=0|expires=thu, 01 jan 1970/i.test(line)) jar.delete(name);
      else jar.set(name, value);
    }
    return response;
  }

  async function follow(url: URL, init: RequestInit): Promise<Page> {
    let response = await send(url, init);
    for (let hops = 0; response.status >= 300 && response.status < 400 && hops < 20; hops++) {
      url = new URL(response.headers.get('location')!, url);
      response = await send(url, { method: 'GET' });
    }
    return { url: url.href, status: response.status, body: await response.text() };
  }

  return {
    open: (url) => follow(new URL(url), { method: 'GET' }),
    cookieHeader: (url) => cookieHeader(new URL(url)),
    submit: (url, fields) =>
      follow(new URL(url), {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams(fields).toString(),
      }),
    async postJson(url, body, csrfToken) {
      const response = await send(new URL(url), {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-csrf-token': csrfToken },
        body: JSON.stringify(body),
      });
      return { status: response.status, json: (await response.json()) as Record<string, unknown> };
    },
    async redirectOf(url) {
      const target = new URL(url);
      const response = await send(target, { method: 'GET' });
      await response.body?.cancel();
      return new URL(response.headers.get('location')!, target).href;
    },
  };
}

/** The CSRF token of the page's first form. */
export function csrfOf(page: Page): string {
  const token = /name="_csrf" value="([^"]+)"/.exec(page.body)?.[1];
  if (token === undefined) throw new Error(`no CSRF token on ${page.url} (${page.status})`);
  return token;
}

/** The action of the page's first form, absolute. */
export function formAction(page: Page): string {
  const action = /<form[^>]*action="([^"]+)"/.exec(page.body)?.[1];
  if (action === undefined) throw new Error(`no form on ${page.url} (${page.status}):\n${page.body.slice(0, 500)}`);
  return new URL(action.replace(/&amp;/g, '&'), page.url).href;
}

/**
 * At the upstream's dev login page: signs in as `login` (its account id; any password), then gives consent when asked;
 * the page the browser ends at (back at the product).
 */
export async function signInAtUpstream(browser: FetchBrowser, loginPage: Page, login: string): Promise<Page> {
  let page = await browser.submit(formAction(loginPage), { prompt: 'login', login, password: 'any' });
  if (page.body.includes('name="prompt" value="consent"')) page = await browser.submit(formAction(page), { prompt: 'consent' });
  return page;
}
