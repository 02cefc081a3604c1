import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type BrowserContext, type CDPSession, type Page } from 'playwright-core';

/** Debian's Chromium (Playwright's own browser download does not work offline). */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

export const SCREENSHOT_DIR = join(import.meta.dirname, '../../test-results/screenshots');

/** Headless Chromium with the flags this sandbox needs (root, no GPU, no network beyond loopback). */
export async function launchBrowser(): Promise<Browser> {
  // A missing browser fails the browser tests loudly rather than skipping them.
  if (!existsSync(CHROMIUM_PATH)) {
    throw new Error(
      `Chromium not found at ${CHROMIUM_PATH}: install Debian's chromium package (apt-get install chromium) or set CHROMIUM_PATH`,
    );
  }
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
  });
}

/**
 * Collects what the page's strict CSP refuses from now on (an inline script or style would be), as Chromium reports it
 * on the console; other console errors, such as the missing favicon, are not collected.
 */
export function cspViolations(page: Page): string[] {
  const violations: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error' && message.text().includes('Content Security Policy')) violations.push(message.text());
  });
  return violations;
}

/** Saves a full-page screenshot under test-results/screenshots/<name>.png. */
export async function screenshot(page: Page, name: string): Promise<string> {
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  const path = join(SCREENSHOT_DIR, `${name}.png`);
  await page.screenshot({ path, fullPage: true });
  return path;
}

/**
 * Gives the page a CDP virtual platform authenticator (CTAP2, resident keys, user verification passes, presence
 * answered at once), as a laptop with a fingerprint reader would be: what WebAuthn ceremonies need in headless Chromium.
 */
export async function addVirtualAuthenticator(context: BrowserContext, page: Page): Promise<CDPSession> {
  return (await virtualAuthenticator(context, page)).cdp;
}

/** The same, with the authenticator's id, for CDP commands about it (WebAuthn.setUserVerified, getCredentials). */
export async function virtualAuthenticator(context: BrowserContext, page: Page): Promise<{ cdp: CDPSession; authenticatorId: string }> {
  const cdp = await context.newCDPSession(page);
  await cdp.send('WebAuthn.enable', { enableUI: false });
  const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: {
      protocol: 'ctap2',
      transport: 'internal',
      hasResidentKey: true,
      hasUserVerification: true,
      isUserVerified: true,
      automaticPresenceSimulation: true,
    },
  });
  return { cdp, authenticatorId };
}

export interface PersonAtAuthorization {
  /** Where the client's redirect URIs point: the page is done once it lands there. */
  callbackUrl: string;
  username: string;
  password: string;
  /** Checks the consent page (when one is shown) before Authorize is clicked. */
  onConsent?: (page: Page) => Promise<void>;
  /** The request must ask for a sign-in (no session yet): anything else fails. */
  mustSignIn?: boolean;
}

/**
 * The person's part of an authorization request in Chromium: opens `url`, signs in at /login when asked, approves on
 * the consent page when one is shown, and resolves at the client's callback with where it landed.
 */
export async function authorizeInChromium(page: Page, url: string, person: PersonAtAuthorization): Promise<URL> {
  await page.goto(url);
  const askedToSignIn = new URL(page.url()).pathname === '/login';
  if (person.mustSignIn && !askedToSignIn) throw new Error(`expected the login page, not ${page.url()}`);
  if (askedToSignIn) {
    await page.getByLabel('Username').fill(person.username);
    await page.getByLabel('Password').fill(person.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
  }
  return approveIfAsked(page, person.callbackUrl, person.onConsent);
}

/**
 * Once the person has signed in (or needed not): waits for the consent page or the client's callback, approves on the
 * consent page when one is shown (after `onConsent`'s checks), and resolves at the callback with where it landed.
 */
export async function approveIfAsked(page: Page, callbackUrl: string, onConsent?: (page: Page) => Promise<unknown>): Promise<URL> {
  const atCallback = (at: URL) => at.href.startsWith(callbackUrl);
  await page.waitForURL((at) => atCallback(at) || at.pathname === '/oauth/authorize');
  if (!atCallback(new URL(page.url()))) {
    await onConsent?.(page);
    await Promise.all([page.waitForURL(atCallback), page.getByRole('button', { name: 'Authorize' }).click()]);
  }
  return new URL(page.url());
}
