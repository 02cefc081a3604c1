import { describe, expect, it } from 'vitest';
import { ServerError } from '../../src/oauth/errors.js';
import { sectorOf, subjectFor, type SubjectClient } from '../../src/oauth/openid/subject.js';

// OpenID Connect Core 1.0 section 8: the one rule for the `sub` a client sees (src/oauth/openid/subject.ts).

const SALT = 'pairwise-salt-of-this-test-server-0123456789';
const config = { openid: { pairwiseSalt: SALT } };
const user = { subject: '6f1c9f4e-2a57-4c1e-9d0b-1f3e5a7c9b21' };
const client = (overrides: Partial<SubjectClient> = {}): SubjectClient => ({
  subjectType: 'pairwise',
  sectorIdentifierUri: null,
  redirectUris: ['https://app.example.com/callback'],
  ...overrides,
});

describe('OpenID Connect Core 1.0 section 8 subject identifiers', () => {
  it('section 8: a public client, or no client, sees the user subject itself', () => {
    expect(subjectFor(user, client({ subjectType: 'public' }), config)).toBe(user.subject);
    expect(subjectFor(user, null, config)).toBe(user.subject);
    expect(subjectFor(user, client({ subjectType: 'public' }), { openid: { pairwiseSalt: null } })).toBe(user.subject);
  });

  it('section 8.1: a pairwise sub is stable, not the public one, and the same for every client of one sector host', () => {
    const pairwise = subjectFor(user, client(), config);
    expect(pairwise).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(pairwise).not.toBe(user.subject);
    expect(subjectFor(user, client(), config)).toBe(pairwise);
    // Another path, port or scheme on the same host is the same sector.
    expect(subjectFor(user, client({ redirectUris: ['https://APP.example.com:8443/other', 'https://app.example.com/cb'] }), config)).toBe(
      pairwise,
    );
  });

  it('section 8.1: different sectors, users and salts give different subs', () => {
    const pairwise = subjectFor(user, client(), config);
    expect(subjectFor(user, client({ redirectUris: ['https://other.example.com/callback'] }), config)).not.toBe(pairwise);
    expect(subjectFor({ subject: 'another-user' }, client(), config)).not.toBe(pairwise);
    expect(subjectFor(user, client(), { openid: { pairwiseSalt: `${SALT}!` } })).not.toBe(pairwise);
  });

  it('section 8.1: the host of a sector_identifier_uri is the sector, whatever the redirect URIs', () => {
    const sector = client({
      sectorIdentifierUri: 'https://sector.example.org/redirects.json',
      redirectUris: ['https://a.example.com/cb', 'https://b.example.net/cb'],
    });
    expect(sectorOf(sector)).toBe('sector.example.org');
    expect(subjectFor(user, sector, config)).toBe(subjectFor(user, client({ redirectUris: ['https://sector.example.org/x'] }), config));
  });

  it('section 8.1: redirect URIs on several hosts, or on none, name no sector', () => {
    expect(sectorOf(client({ redirectUris: ['https://a.example.com/cb', 'https://b.example.com/cb'] }))).toBeNull();
    expect(sectorOf(client({ redirectUris: ['com.example.app:/callback'] }))).toBeNull();
    expect(sectorOf(client({ redirectUris: [] }))).toBeNull();
  });

  it('a pairwise client is never given the public subject: without a salt or a sector it is a server error', () => {
    expect(() => subjectFor(user, client(), { openid: { pairwiseSalt: null } })).toThrow(ServerError);
    expect(() => subjectFor(user, client({ redirectUris: [] }), config)).toThrow(ServerError);
  });
});
