import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/loader.js';
import { passkeysUsable, relyingParty } from '../../src/http/passkeys/relying-party.js';

// config authentication.passkeys (issue 35 item 1): an rp id no allowed origin can use fails the boot, with its path.

describe('config authentication.passkeys', () => {
  const load = (baseUrl: string, passkeys: Record<string, unknown>) => () =>
    loadConfig({ input: { baseUrl, authentication: { passkeys } } });

  it("defaults to baseUrl's host and origin, and accepts an rp id the origins are under", () => {
    expect(loadConfig({ input: { baseUrl: 'https://id.example.com' } }).authentication.passkeys).toEqual({
      rpId: null,
      origins: [],
      rpName: 'oauth-service',
    });
    expect(load('https://id.example.com', { rpId: 'example.com' })).not.toThrow();
    expect(load('http://10.0.0.5:3000', { rpId: 'login.example.com', origins: ['https://login.example.com'] })).not.toThrow();
  });

  it('refuses an rp id that is not the host of the origins (or baseUrl) nor a domain above it', () => {
    expect(load('https://id.example.com', { rpId: 'other.example' })).toThrow(
      'authentication.passkeys.rpId: other.example is neither id.example.com nor a domain it is under (origins, else baseUrl)',
    );
    expect(load('https://id.example.com', { rpId: 'ample.com' })).toThrow('authentication.passkeys.rpId: ample.com is neither');
    expect(load('https://id.example.com', { origins: ['id.example.com'] })).toThrow('authentication.passkeys.origins');
  });

  it('offers passkeys only where browsers can run them: an rp id that is a domain, never an IP address', () => {
    const usable = (baseUrl: string, passkeys: Record<string, unknown> = {}) =>
      passkeysUsable(relyingParty(loadConfig({ input: { baseUrl, authentication: { passkeys } } })));
    expect(usable('https://id.example.com')).toBe(true);
    expect(usable('http://localhost:3000')).toBe(true);
    expect(usable('http://127.0.0.1:3000')).toBe(false);
    expect(usable('http://[::1]:3000')).toBe(false);
    expect(usable('http://10.0.0.5:3000', { rpId: 'login.example.com', origins: ['https://login.example.com'] })).toBe(true);
  });
});
