import type { AuthenticationResponseJSON, AuthenticatorTransport, PublicKeyCredentialRequestOptionsJSON } from '@simplewebauthn/server';
import type { FastifyRequest } from 'fastify';
import type { OAuthDeps } from '../../oauth/deps.js';
import type { PasskeyRefusal } from '../../oauth/audit/passkey-events.js';
import {
  completePasskeySignIn,
  passkeyForSignIn,
  refusePasskeyAssertion,
  userHandleProblem,
} from '../../oauth/passkeys/passkey-sign-in.js';
import { passkeysOfUser } from '../../oauth/passkeys/passkeys.js';
import type { UserRecord } from '../../oauth/store.js';
import { CEREMONY_TIMEOUT_MS, keepChallenge, takeChallenge, type CeremonyPurpose } from './ceremony-challenge.js';
import { relyingParty } from './relying-party.js';
import { webauthnLibrary } from './webauthn-library.js';

// Signing in with a passkey (WebAuthn Level 3 section 7.2), alone or as the second step after a password: the options,
// then the check of the assertion. The domain (oauth/passkeys/passkey-sign-in.ts) decides what a verified one is worth.

/** Which ceremony: what its challenge is kept for, which credentials count, whether user verification is required. */
export interface AuthenticationCeremony {
  purpose: Extract<CeremonyPurpose, 'sign_in' | 'second_factor' | 'link'>;
  /** The user who must answer (the second step); absent: any user's discoverable credential. */
  user?: UserRecord;
  userVerification: 'required' | 'preferred';
}

/**
 * A passkey alone (/login): no allowCredentials, so the browser offers the discoverable credentials it has for this
 * rp id (a button, or autofill in the user name field). User verification is required, as at registration: the
 * passkey is the whole sign-in, so the authenticator's PIN or biometric is the second factor.
 */
export const PASSKEY_ALONE: AuthenticationCeremony = { purpose: 'sign_in', userVerification: 'required' };

/**
 * The second step after a right password (/login/second-factor): only that user's passkeys, and user verification
 * merely preferred, since the password was the knowledge factor and the key is the possession factor (a security key
 * without a PIN passes).
 */
export const passkeyAfterPassword = (user: UserRecord): AuthenticationCeremony => ({
  purpose: 'second_factor',
  user,
  userVerification: 'preferred',
});

/**
 * The proof of a local account before an upstream identity is linked to it (issue 37): only that user's passkeys, with
 * user verification required, as a passkey alone: the passkey is the whole proof.
 */
export const passkeyProvingAccount = (user: UserRecord): AuthenticationCeremony => ({
  purpose: 'link',
  user,
  userVerification: 'required',
});

export async function authenticationOptions(
  deps: OAuthDeps,
  request: FastifyRequest,
  ceremony: AuthenticationCeremony = PASSKEY_ALONE,
): Promise<PublicKeyCredentialRequestOptionsJSON> {
  const allowed = ceremony.user === undefined ? [] : await passkeysOfUser(deps, ceremony.user.id);
  const { generateAuthenticationOptions } = await webauthnLibrary();
  const options = await generateAuthenticationOptions({
    rpID: relyingParty(deps.config).id,
    timeout: CEREMONY_TIMEOUT_MS,
    userVerification: ceremony.userVerification,
    ...(ceremony.user !== undefined && {
      allowCredentials: allowed.map((passkey) => ({
        id: passkey.credentialId,
        transports: passkey.transports as AuthenticatorTransport[],
      })),
    }),
  });
  keepChallenge(request, ceremony.purpose, options.challenge, deps.now());
  return options;
}

export type AuthenticationOutcome =
  | { outcome: 'signed_in'; user: UserRecord; amr: string[] }
  | { outcome: 'refused'; reason: PasskeyRefusal | 'no_ceremony'; detail?: string };

export async function completeAuthentication(
  deps: OAuthDeps,
  request: FastifyRequest,
  response: AuthenticationResponseJSON,
  ceremony: AuthenticationCeremony = PASSKEY_ALONE,
): Promise<AuthenticationOutcome> {
  const challenge = await takeChallenge(deps, request, ceremony.purpose);
  if (challenge === null) return { outcome: 'refused', reason: 'no_ceremony' };
  const found = await passkeyForSignIn(deps, response.id, request.ip, ceremony.user?.id);
  if (found.outcome === 'refused') return found;
  const { passkey, user } = found;
  // Section 7.2 step 6: refused like a failed signature (401, audited as verification_failed).
  const handle = userHandleProblem(user, response.response.userHandle, ceremony.user !== undefined);
  if (handle !== null) {
    await refusePasskeyAssertion(deps, passkey, request.ip, handle);
    return { outcome: 'refused', reason: 'verification_failed', detail: handle };
  }
  const rp = relyingParty(deps.config);
  const { verifyAuthenticationResponse } = await webauthnLibrary();
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
      requireUserVerification: ceremony.userVerification === 'required',
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
  const assertion = { signCount: newCounter, backedUp: credentialBackedUp };
  const signIn = await completePasskeySignIn(deps, passkey, assertion, request.ip, ceremony.purpose === 'second_factor');
  return signIn.outcome === 'refused' ? signIn : { outcome: 'signed_in', user, amr: signIn.amr };
}
