// The signed-in users of bench:peers' par_code scenario: before the run, each connection's user agent signs in and
// authorizes the FAPI client once, as a browser does, so that the measured authorization requests are those of a
// user who is signed in and consented before (answered with the code at once). On the service: its login form, then
// its consent page's Authorize form (later sign-ins skip it: the client holds a live token of the user for these
// scopes). On node-oidc-provider: its interaction, which bench/peer-oidc-provider.ts completes for bench-user with a
// grant of the scopes asked for.
import { FAPI_REDIRECT_URI } from './peer-clients.js';
import type { ParCodeFlow } from './peer-par-code.js';

const FORM = 'application/x-www-form-urlencoded';
/** Redirects and forms one first authorization may go through before the code. */
const MAX_HOPS = 8;

/** A browser's cookies for one server: what Set-Cookie gave, sent back in `cookie`. */
export class CookieJar {
  private readonly cookies = new Map<string, string>();

  /** fetch() with the cookies, redirects not followed; the answer's Set-Cookie kept. */
  async fetch(url: string, init: RequestInit = {}): Promise<Response> {
    const response = await fetch(url, { ...init, redirect: 'manual', headers: { ...init.headers, cookie: this.header() } });
    for (const line of response.headers.getSetCookie()) {
      const pair = line.split(';')[0]!;
      const at = pair.indexOf('=');
      const [name, value] = [pair.slice(0, at).trim(), pair.slice(at + 1).trim()];
      if (value === '') this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    return response;
  }

  header(): string {
    return [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
  }
}

const postForm = (jar: CookieJar, url: string, fields: Record<string, string>) =>
  jar.fetch(url, { method: 'POST', headers: { 'content-type': FORM }, body: new URLSearchParams(fields).toString() });

const decodeEntities = (text: string) =>
  text
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');

/** The action and hidden fields of a page's first form (the consent page's Authorize form). */
function firstForm(html: string): { action: string; fields: Record<string, string> } {
  const form = html.split('<form').slice(1)[0] ?? '';
  const action = decodeEntities(/action="([^"]*)"/.exec(form)?.[1] ?? '');
  const fields: Record<string, string> = {};
  for (const match of form.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)) fields[match[1]!] = decodeEntities(match[2]!);
  return { action, fields };
}

/** Signs in with the service's login form (its CSRF field and session cookie). */
export async function signInOnService(baseUrl: string, username: string, password: string): Promise<CookieJar> {
  const jar = new CookieJar();
  const page = await (await jar.fetch(`${baseUrl}/login`)).text();
  const csrf = /name="_csrf" value="([^"]+)"/.exec(page)?.[1];
  if (!csrf) throw new Error(`${baseUrl}/login shows no _csrf field`);
  const response = await postForm(jar, `${baseUrl}/login`, { username, password, _csrf: csrf });
  if (response.status !== 303) throw new Error(`signing in on ${baseUrl} answered HTTP ${response.status}`);
  return jar;
}

/**
 * One authorization of the FAPI client as a browser makes it the first time: pushed, then the authorization
 * endpoint and whatever it answers (a consent form is posted, a redirect followed) up to the redirect with the code,
 * which is exchanged. Returns the cookie header the user agent then holds.
 */
export async function authorizeOnce(baseUrl: string, flow: ParCodeFlow, jar: CookieJar): Promise<string> {
  const context: { requestUri?: string; code?: string } = {};
  await flow.fill(1);
  try {
    const pushed = await flow.send(baseUrl, 'par', context, jar.header());
    if (pushed !== null) throw new Error(`first authorization on ${baseUrl}: ${pushed}`);
    const query = new URLSearchParams({ client_id: flow.clients.fapiClientId, request_uri: context.requestUri! });
    let response = await jar.fetch(`${baseUrl}${flow.endpoints.authorize.pathname}?${query}`);
    for (let hop = 0; hop < MAX_HOPS && context.code === undefined; hop += 1) {
      const location = response.headers.get('location');
      if (location?.startsWith(`${FAPI_REDIRECT_URI}?`)) {
        const code = new URL(location).searchParams.get('code');
        if (code === null) throw new Error(`first authorization on ${baseUrl}: ${location}`);
        context.code = code;
      } else if (location) {
        response = await jar.fetch(new URL(location, baseUrl).href);
      } else if (response.status === 200) {
        const { action, fields } = firstForm(await response.text());
        response = await postForm(jar, new URL(action, baseUrl).href, fields);
      } else {
        throw new Error(`first authorization on ${baseUrl}: HTTP ${response.status} ${(await response.text()).slice(0, 200)}`);
      }
    }
    if (context.code === undefined) throw new Error(`first authorization on ${baseUrl}: no code after ${MAX_HOPS} steps`);
    const exchanged = await flow.send(baseUrl, 'token', context, jar.header());
    if (exchanged !== null) throw new Error(`first authorization on ${baseUrl}: ${exchanged}`);
    return jar.header();
  } finally {
    flow.clear();
  }
}
