/**
 * A one-time code as a person types it: without spaces and dashes, which recovery codes ignore too. Authenticator apps
 * show a code in two groups ("123 456"), and a code copied from one may keep the space; the six digits are the code.
 * Apart from totp.ts, which loads otplib: whether a proof is a code is decided without it (issue 30).
 */
export const typedTotpCode = (code: string): string => code.replace(/[\s-]/g, '');

/** Whether a typed proof is a six-digit one-time code (rather than a password or a recovery code). */
export const isTotpCode = (typed: string): boolean => /^[0-9]{6}$/.test(typedTotpCode(typed));
