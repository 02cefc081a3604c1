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
