import {
  generateAuthenticationOptions,
  verifyAuthenticationResponse,
  type AuthenticationResponseJSON,
  type AuthenticatorTransport,
  type PublicKeyCredentialRequestOptionsJSON,
} from '@simplewebauthn/server';
import type { FastifyRequest } from 'fastify';
import type { OAuthDeps } from '../../oauth/deps.js';
import type { PasskeyRefusal } from '../../oauth/audit/passkey-events.js';
import { completePasskeySignIn, passkeyForSignIn, refusePasskeyAssertion } from '../../oauth/passkeys/passkey-sign-in.js';
import type { UserRecord } from '../../oauth/store.js';
import { CEREMONY_TIMEOUT_MS, keepChallenge, takeChallenge } from './ceremony-challenge.js';
import { relyingParty } from './relying-party.js';

// Signing in with a passkey alone (WebAuthn Level 3 section 7.2): options with no allowCredentials, so the browser
// offers the discoverable credentials it has for this rp id (a button, or autofill in the user name field), then
// the check of the assertion. The domain (oauth/passkeys/passkey-sign-in.ts) decides what a verified one is worth.

export async function authenticationOptions(deps: OAuthDeps, request: FastifyRequest): Promise<PublicKeyCredentialRequestOptionsJSON> {
  const options = await generateAuthenticationOptions({
    rpID: relyingParty(deps.config).id,
    timeout: CEREMONY_TIMEOUT_MS,
    // Required, as at registration: a passkey alone is the whole sign-in.
    userVerification: 'required',
  });
  keepChallenge(request, 'sign_in', options.challenge, deps.now());
  return options;
}

export type AuthenticationOutcome =
  | { outcome: 'signed_in'; user: UserRecord; amr: string[] }
  | { outcome: 'refused'; reason: PasskeyRefusal | 'no_ceremony'; detail?: string };

export async function completeAuthentication(
  deps: OAuthDeps,
  request: FastifyRequest,
  response: AuthenticationResponseJSON,
): Promise<AuthenticationOutcome> {
  const challenge = takeChallenge(request, 'sign_in', deps.now());
  if (challenge === null) return { outcome: 'refused', reason: 'no_ceremony' };
  const found = await passkeyForSignIn(deps, response.id, request.ip);
  if (found.outcome === 'refused') return found;
  const { passkey, user } = found;
  const rp = relyingParty(deps.config);
  let verification;
  try {
    verification = await verifyAuthenticationResponse({
      response,
      expectedChallenge: challenge,
      expectedOrigin: rp.origins,
      expectedRPID: [rp.id],
      // Counter 0: the library's own counter check is off, so that the domain's rule (counterRegressed) decides
      // and records a regression as what it is.
      credential: {
        id: passkey.credentialId,
        publicKey: Buffer.from(passkey.publicKey, 'base64url'),
        counter: 0,
        transports: passkey.transports as AuthenticatorTransport[],
      },
      requireUserVerification: true,
    });
  } catch (error) {
    const detail = (error as Error).message;
    await refusePasskeyAssertion(deps, passkey, request.ip, detail);
    return { outcome: 'refused', reason: 'verification_failed', detail };
  }
  if (!verification.verified) {
    await refusePasskeyAssertion(deps, passkey, request.ip, 'signature');
    return { outcome: 'refused', reason: 'verification_failed', detail: 'signature' };
  }
  const { newCounter, credentialBackedUp } = verification.authenticationInfo;
  const signIn = await completePasskeySignIn(deps, passkey, { signCount: newCounter, backedUp: credentialBackedUp }, request.ip);
  return signIn.outcome === 'refused' ? signIn : { outcome: 'signed_in', user, amr: signIn.amr };
}
