import type { PublicKeyCredentialCreationOptionsJSON, RegistrationResponseJSON } from '@simplewebauthn/server';
import type { FastifyRequest } from 'fastify';
import type { OAuthDeps } from '../../oauth/deps.js';
import type { PasskeyRecord } from '../../oauth/passkeys/passkey-store.js';
import { passkeyUserHandle } from '../../oauth/passkeys/passkey-sign-in.js';
import { registerPasskey } from '../../oauth/passkeys/passkeys.js';
import type { UserRecord } from '../../oauth/store.js';
import { CEREMONY_TIMEOUT_MS, keepChallenge, takeChallenge } from './ceremony-challenge.js';
import { relyingParty } from './relying-party.js';
import { webauthnLibrary } from './webauthn-library.js';

// Registering a passkey from the account page (WebAuthn Level 3 section 7.1) with @simplewebauthn/server: the options
// the browser passes to navigator.credentials.create(), then the check of what the authenticator made.

/**
 * The key algorithms a new passkey may use, most preferred first (COSE: EdDSA -8, ES256 -7, RS256 -257): the same on
 * every Node.js the service runs on. Left to the library, the list starts with ML-DSA-44 where the runtime's Web Crypto
 * has it (Node.js 24, the image's), which it asks through an API Node.js still calls experimental (a warning on stderr),
 * and a passkey made so on Node.js 24 could not sign in on Node.js 20. One an earlier version registered so signs in
 * where the runtime verifies it: the sign-in takes the stored key's algorithm (and passkey-schemas.ts its signature).
 */
const PASSKEY_ALGORITHMS = [-8, -7, -257];

/**
 * residentKey required: a passkey must be discoverable, so that it alone signs in (no user name first).
 * userVerification required: a passkey alone is the whole sign-in, so the authenticator must check its user (PIN or
 * biometric) as well as hold the key. Attestation none: which authenticator model it is, is not checked here.
 * excludeCredentials: the user's passkeys, so an authenticator that holds one already says so instead of adding a twin.
 */
export async function registrationOptions(
  deps: OAuthDeps,
  request: FastifyRequest,
  user: UserRecord,
  existing: readonly PasskeyRecord[],
): Promise<PublicKeyCredentialCreationOptionsJSON> {
  const rp = relyingParty(deps.config);
  const { generateRegistrationOptions } = await webauthnLibrary();
  const options = await generateRegistrationOptions({
    rpName: rp.name,
    rpID: rp.id,
    userName: user.username,
    userDisplayName: user.name ?? user.username,
    // The user handle authenticators keep, and give back at every sign-in (checked: authentication-ceremony.ts).
    userID: passkeyUserHandle(user),
    timeout: CEREMONY_TIMEOUT_MS,
    attestationType: 'none',
    excludeCredentials: existing.map((passkey) => ({ id: passkey.credentialId, transports: passkey.transports })),
    authenticatorSelection: { residentKey: 'required', userVerification: 'required' },
    supportedAlgorithmIDs: PASSKEY_ALGORITHMS,
  });
  keepChallenge(request, 'register', options.challenge, deps.now());
  return options;
}

/**
 * A refusal's `reason` is for the log (the library's messages say which check failed: origin, rp id, challenge,
 * format); `said` names the sentence the user reads, in the page's language (passkeys.<said>).
 */
export type RegistrationOutcome =
  | { outcome: 'registered'; passkey: PasskeyRecord }
  | { outcome: 'refused'; reason: string; said: 'failed' | 'alreadyRegistered' | 'startAgain' };

/** Checks the authenticator's answer against the open ceremony and stores the passkey; nothing is stored on a refusal. */
export async function completeRegistration(
  deps: OAuthDeps,
  request: FastifyRequest,
  user: UserRecord,
  answer: { name: string; response: RegistrationResponseJSON },
): Promise<RegistrationOutcome> {
  const challenge = await takeChallenge(deps, request, 'register');
  if (challenge === null) return { outcome: 'refused', reason: 'no registration under way, or it expired', said: 'startAgain' };
  const rp = relyingParty(deps.config);
  const { verifyRegistrationResponse } = await webauthnLibrary();
  let verification;
  try {
    verification = await verifyRegistrationResponse({
      response: answer.response,
      expectedChallenge: challenge,
      expectedOrigin: rp.origins,
      expectedRPID: rp.id,
      requireUserVerification: true,
      supportedAlgorithmIDs: PASSKEY_ALGORITHMS,
    });
  } catch (error) {
    // The library's messages hold no secret.
    return { outcome: 'refused', reason: (error as Error).message, said: 'failed' };
  }
  if (!verification.verified) return { outcome: 'refused', reason: 'not verified', said: 'failed' };
  const { credential, credentialDeviceType, credentialBackedUp, aaguid } = verification.registrationInfo;
  const passkey = await registerPasskey(
    deps,
    {
      credentialId: credential.id,
      userId: user.id,
      publicKey: Buffer.from(credential.publicKey).toString('base64url'),
      signCount: credential.counter,
      transports: credential.transports ?? [],
      backupEligible: credentialDeviceType === 'multiDevice',
      backedUp: credentialBackedUp,
      deviceType: credentialDeviceType,
      aaguid,
      name: answer.name,
    },
    request.ip,
  );
  return passkey === null
    ? { outcome: 'refused', reason: 'credential id registered already', said: 'alreadyRegistered' }
    : { outcome: 'registered', passkey };
}
