import { generateSecret, generateURI, verify } from 'otplib';
import { isTotpCode, typedTotpCode } from './typed-code.js';

// RFC 6238 as every authenticator app reads it (the otpauth URI's defaults): HMAC-SHA-1, 6 digits, 30-second steps.
// A code of the step before or after the current one passes too (RFC 6238 section 5.2: clocks drift, and a code
// typed at the end of its step arrives in the next one).

const PERIOD_SECONDS = 30;

/** A new secret: 20 random bytes (RFC 4226 section 4 recommends 160 bits), base32. */
export const newTotpSecret = (): string => generateSecret({ length: 20 });

// Key URI Format: "Neither issuer nor account name may themselves contain a colon": the label is issuer:account, and
// an encoded colon (%3A) separates them too, so encoding is no way out. A colon left in either (an IPv6 host, a user
// name with one) becomes a dash; they are names an app shows, never compared with anything.
const withoutColons = (text: string): string => text.replaceAll(':', '-');

/** The otpauth:// URI an authenticator app reads from the QR code. */
export function totpUri(issuer: string, accountName: string, secret: string): string {
  return generateURI({
    issuer: withoutColons(issuer),
    label: withoutColons(accountName),
    secret,
    algorithm: 'sha1',
    digits: 6,
    period: PERIOD_SECONDS,
  });
}

/** The RFC 6238 time step a code is valid for, or null when it is valid for none near `now`. */
export async function totpStep(secret: string, typed: string, now: Date): Promise<number | null> {
  if (!isTotpCode(typed)) return null;
  const code = typedTotpCode(typed);
  const result = await verify({ secret, token: code, epoch: Math.floor(now.getTime() / 1000), epochTolerance: PERIOD_SECONDS });
  return result.valid && 'timeStep' in result ? result.timeStep : null;
}
