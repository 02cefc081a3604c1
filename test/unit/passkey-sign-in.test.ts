import { describe, expect, it } from 'vitest';
import { counterRegressed, passkeyAmr, passkeyUserHandle, userHandleProblem } from '../../src/oauth/passkeys/passkey-sign-in.js';
import { passkeyName } from '../../src/oauth/passkeys/passkeys.js';

// The rules of a passkey sign-in (issue 35 item 1) that need no ceremony: the signature counter, the amr, the name.

describe('passkey sign-in rules', () => {
  it('WebAuthn Level 3 section 6.1.1: a counter that does not move forward is a regression, unless neither side counts', () => {
    expect(counterRegressed(0, 0)).toBe(false);
    expect(counterRegressed(0, 1)).toBe(false);
    expect(counterRegressed(5, 6)).toBe(false);
    expect(counterRegressed(5, 5)).toBe(true);
    expect(counterRegressed(5, 4)).toBe(true);
    expect(counterRegressed(5, 0)).toBe(true);
  });

  it('RFC 8176: swk for a synced (multi-device or backed up) passkey, hwk for a device-bound one, with mfa (user verification)', () => {
    expect(passkeyAmr({ deviceType: 'multiDevice', backedUp: true })).toEqual(['swk', 'mfa']);
    expect(passkeyAmr({ deviceType: 'multiDevice', backedUp: false })).toEqual(['swk', 'mfa']);
    expect(passkeyAmr({ deviceType: 'singleDevice', backedUp: false })).toEqual(['hwk', 'mfa']);
  });

  it("WebAuthn Level 3 section 7.2 step 6: the user handle must be the owner's; alone it must be there, after a password it may not", () => {
    const owner = { subject: 'c0ffee-subject' };
    const own = Buffer.from(passkeyUserHandle(owner)).toString('base64url');
    const another = Buffer.from('another-subject').toString('base64url');
    expect(userHandleProblem(owner, own, false)).toBeNull();
    expect(userHandleProblem(owner, own, true)).toBeNull();
    expect(userHandleProblem(owner, another, false)).toBe("user handle not the credential owner's");
    expect(userHandleProblem(owner, another, true)).toBe("user handle not the credential owner's");
    expect(userHandleProblem(owner, undefined, false)).toBe('user handle missing');
    expect(userHandleProblem(owner, '', false)).toBe('user handle missing');
    expect(userHandleProblem(owner, undefined, true)).toBeNull();
  });

  it('a passkey name is trimmed, 1 to 64 characters, without control characters', () => {
    expect(passkeyName('  Laptop ')).toBe('Laptop');
    expect(passkeyName('   ')).toBeNull();
    expect(passkeyName('x'.repeat(65))).toBeNull();
    expect(passkeyName('a\u0000b')).toBeNull();
    expect(passkeyName('YubiKey 5 – 日本')).toBe('YubiKey 5 – 日本');
  });
});
