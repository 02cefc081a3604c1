import { generate } from 'otplib';
import { expect } from 'vitest';
import type { LightMyRequestResponse } from 'fastify';
import { PASSWORD, type UserAgent } from './end-user.js';

// Issue 35 item 2: what a person with an authenticator app does, for the tests: read the secret off the enrolment page
// (the otpauth URI behind the QR code), compute codes from it as the app would, confirm, keep the recovery codes.

/** The base32 secret of the otpauth:// URI on an enrolment page. */
export function secretOnPage(html: string): string {
  const uri = /id="otpauth_uri" href="([^"]+)"/.exec(html)?.[1];
  if (!uri) throw new Error(`no otpauth URI on the page: ${html.slice(0, 300)}`);
  const secret = new URL(uri.replace(/&amp;/g, '&')).searchParams.get('secret');
  if (!secret) throw new Error(`no secret in ${uri}`);
  return secret;
}

/** The code an authenticator app shows for `secret` at `at`. */
export const codeAt = (secret: string, at: Date): Promise<string> => generate({ secret, epoch: Math.floor(at.getTime() / 1000) });

/** The recovery codes on the page shown once after enrolment (or regeneration). */
export const recoveryCodesOnPage = (html: string): string[] =>
  [...html.matchAll(/<li><code>([0-9A-Z-]+)<\/code><\/li>/g)].map((match) => match[1]!);

/** Sets up an authenticator from /account (the browser is signed in): its secret and recovery codes. */
export async function enrolFromAccount(agent: UserAgent, now: Date): Promise<{ secret: string; recoveryCodes: string[] }> {
  const page = await agent.request({ method: 'GET', url: '/account/second-factor' });
  expect(page.statusCode).toBe(200);
  const secret = secretOnPage(page.body);
  const code = await codeAt(secret, now);
  const confirmed = await agent.post('/account/second-factor', { current: PASSWORD, code }, '/account/second-factor');
  expect(confirmed.statusCode, confirmed.body.slice(0, 300)).toBe(200);
  const recoveryCodes = recoveryCodesOnPage(confirmed.body);
  expect(recoveryCodes).toHaveLength(10);
  return { secret, recoveryCodes };
}

/** The second step of /login with `code`. */
export const secondStep = (agent: UserAgent, code: string): Promise<LightMyRequestResponse> =>
  agent.post('/login/second-factor', { code }, '/login/second-factor');

/** A passkey row as the store takes it, for tests that need a user to have one without a WebAuthn ceremony. */
export const storedPasskey = (userId: number, credentialId = `cred-${userId}`, name = 'Key') => ({
  credentialId,
  userId,
  publicKey: 'AAAA',
  signCount: 0,
  transports: ['usb'],
  backupEligible: false,
  backedUp: false,
  deviceType: 'singleDevice',
  aaguid: null,
  name,
});
