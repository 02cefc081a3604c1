import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { displayUriProblem, isInternalHost, redirectUriVerdict } from '../../src/oauth/clients/registration/client-registration-uris.js';
import type { RegistrationTokenRecord } from '../../src/oauth/clients/registration/registration-store.js';
import { tokenState } from '../../src/oauth/clients/registration/registration-tokens.js';

// The pure rules of self-registration (issue 19): which redirect URIs need a native client, which display URI
// hosts a browser must never be sent to, and when an initial access token may register.

describe('redirectUriVerdict (RFC 8252, OpenID Connect Registration application_type)', () => {
  it('https is for any client; loopback http and private-use schemes need a native one', () => {
    expect(redirectUriVerdict('https://rp.example/cb')).toEqual({ needs: 'either' });
    for (const uri of [
      'http://127.0.0.1:1234/cb',
      'http://127.1.2.3/cb',
      'http://[::1]/cb',
      'http://localhost:8080/',
      'com.example.app:/cb',
    ])
      expect({ uri, verdict: redirectUriVerdict(uri) }).toEqual({ uri, verdict: { needs: 'native' } });
  });

  it('refuses everything else with a problem naming the URI', () => {
    for (const uri of [
      'http://rp.example/cb',
      'http://localhost.rp.example/cb',
      'https://rp.example/cb#x',
      'javascript:alert(1)',
      'data:text/html,x',
      'myapp:/cb',
      'urn:ietf:wg:oauth:2.0:oob',
      'ftp://rp.example/',
      '/relative',
      `https://rp.example/${'a'.repeat(2000)}`,
    ])
      expect({ uri, problem: 'problem' in redirectUriVerdict(uri) }).toEqual({ uri, problem: true });
  });
});

describe('isInternalHost', () => {
  it('is true for loopback, private, link-local, CGNAT, unspecified and multicast literals and internal names', () => {
    for (const host of [
      '127.0.0.1',
      '10.1.2.3',
      '172.31.255.255',
      '192.168.0.1',
      '169.254.169.254',
      '100.64.0.1',
      '0.0.0.0',
      '224.0.0.1',
      '255.255.255.255',
      '[::1]',
      '[::]',
      '[fe80::1]',
      '[fc00::1]',
      '[ff02::1]',
      '[::ffff:127.0.0.1]',
      '[::ffff:7f00:1]',
      '[::ffff:a9fe:a9fe]',
      'localhost',
      'app.localhost',
      'printer.local',
      'db.internal',
      'nas.home.arpa',
      'intranet',
    ])
      expect({ host, internal: isInternalHost(host) }).toEqual({ host, internal: true });
  });

  it('refuses the IPv6 forms that carry an internal IPv4 address, as the metadata document fetcher does', () => {
    for (const host of [
      '[64:ff9b::a9fe:a9fe]',
      '[2002:a9fe:a9fe::]',
      '[::ffff:0:a9fe:a9fe]',
      '[::7f00:1]',
      '[2001::1]',
      '[64:ff9b:1::1]',
      '[2001:db8::1]',
    ])
      expect({ host, internal: isInternalHost(host) }).toEqual({ host, internal: true });
    for (const uri of ['https://[::127.0.0.1]/', 'https://[64:ff9b::169.254.169.254]/', 'https://[::ffff:0:10.0.0.1]/'])
      expect({ uri, internal: isInternalHost(new URL(uri).hostname) }).toEqual({ uri, internal: true });
    for (const host of ['[64:ff9b::808:808]', '[2002:808:808::1]', '[::ffff:0:808:808]'])
      expect({ host, internal: isInternalHost(host) }).toEqual({ host, internal: false });
  });

  it('reads a name with a trailing dot (the DNS root) as the name without it', () => {
    for (const host of ['intranet.', 'intranet..', 'metadata.', '.intranet', 'app.localhost..', 'db.internal.'])
      expect({ host, internal: isInternalHost(host) }).toEqual({ host, internal: true });
    expect(isInternalHost('rp.example.')).toBe(false);
  });

  it('is false for public names and addresses', () => {
    for (const host of ['rp.example', 'cdn.rp.example', '93.184.215.14', '172.32.0.1', '[2606:4700::1111]', 'localhost.rp.example'])
      expect({ host, internal: isInternalHost(host) }).toEqual({ host, internal: false });
  });

  it('every address in 127/8, 10/8 and 169.254/16 is internal, as WHATWG URL parses it', () => {
    const octet = fc.integer({ min: 0, max: 255 });
    fc.assert(
      fc.property(fc.constantFrom(127, 10), octet, octet, octet, (a, b, c, d) =>
        isInternalHost(new URL(`https://${a}.${b}.${c}.${d}/`).hostname),
      ),
    );
    fc.assert(fc.property(octet, octet, (c, d) => isInternalHost(`169.254.${c}.${d}`)));
  });
});

describe('displayUriProblem', () => {
  it('accepts an https URL on a public host and names the member otherwise', () => {
    expect(displayUriProblem('logo_uri', 'https://cdn.rp.example/logo.png')).toBeNull();
    expect(displayUriProblem('logo_uri', 'https://0x7f.1/logo.png')).toBe(
      'logo_uri must not point at a loopback, private or link-local host.',
    );
    expect(displayUriProblem('tos_uri', 'http://rp.example/tos')).toBe('tos_uri must be an https URL.');
    expect(displayUriProblem('client_uri', 'https://u:p@rp.example/')).toBe('client_uri must not hold credentials.');
    expect(displayUriProblem('policy_uri', 'privacy')).toBe('policy_uri must be an absolute https URL.');
  });
});

describe('tokenState (initial access tokens)', () => {
  const now = new Date('2026-11-25T12:00:00Z');
  const token = (changes: Partial<RegistrationTokenRecord>): RegistrationTokenRecord => ({
    id: 1,
    token: 'x',
    usesRemaining: null,
    expiresAt: null,
    createdAt: now,
    revokedAt: null,
    grantTypes: [],
    scopes: [],
    ...changes,
  });
  it('is usable until revoked, expired (at its expiry instant) or used up', () => {
    expect(tokenState(token({}), now)).toBe('usable');
    expect(tokenState(token({ usesRemaining: 1, expiresAt: new Date(now.getTime() + 1) }), now)).toBe('usable');
    expect(tokenState(token({ expiresAt: now }), now)).toBe('expired');
    expect(tokenState(token({ usesRemaining: 0 }), now)).toBe('used up');
    expect(tokenState(token({ revokedAt: now, usesRemaining: 0 }), now)).toBe('revoked');
  });
});
