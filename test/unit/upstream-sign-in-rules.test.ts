import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/loader.js';
import { federatedAmr, federatedLevel, upstreamShowsTwoFactors } from '../../src/oauth/federation/upstream-amr.js';
import { checkAllowedDomain, mappedClaims } from '../../src/oauth/federation/upstream-claims.js';
import { UpstreamFailure } from '../../src/oauth/federation/upstream-failure.js';

// Issue 37: what a federated sign-in is called in our tokens, and how an upstream's claims become ours.

const entryWith = (fields: Record<string, unknown>) =>
  loadConfig({ input: { identityProviders: [{ id: 'gh', name: 'GitHub', issuer: 'https://github.com', clientId: 'x', ...fields }] } })
    .identityProviders[0]!;

describe('federated amr and acr level (RFC 8176 fed)', () => {
  it('fed first, the upstream values kept when they are RFC 8176 tokens, our second step without a pwd it was not', () => {
    expect(federatedAmr(['pwd', '<script>', 'mfa'], ['pwd', 'otp'])).toEqual(['fed', 'pwd', 'mfa', 'otp']);
    expect(federatedAmr([], [])).toEqual(['fed']);
  });

  it('pwd by default; mfa when the upstream shows two factors or our second step ran; never phr on the upstream’s word', () => {
    expect(federatedLevel([], [])).toBe('pwd');
    expect(federatedLevel(['pwd', 'otp'], [])).toBe('mfa');
    expect(federatedLevel(['hwk'], [])).toBe('mfa');
    expect(federatedLevel(['pwd'], ['otp'])).toBe('mfa');
    expect(federatedLevel([], ['hwk'])).toBe('phr');
    expect(upstreamShowsTwoFactors(['pwd'])).toBe(false);
    expect(upstreamShowsTwoFactors(['mfa'])).toBe(true);
  });
});

describe('upstream claim mapping', () => {
  it('maps GitHub-style claims (id -> sub, login -> username), a numeric id becoming a string', () => {
    const entry = entryWith({
      type: 'oauth2',
      authorizationEndpoint: 'https://github.com/login/oauth/authorize',
      tokenEndpoint: 'https://github.com/login/oauth/access_token',
      userinfoEndpoint: 'https://api.github.com/user',
      claims: { sub: 'id', username: 'login' },
    });
    expect(mappedClaims(entry, { id: 583231, login: 'octocat', name: 'The Octocat', email: null })).toEqual({
      sub: '583231',
      username: 'octocat',
      name: 'The Octocat',
      email_verified: false,
    });
  });

  it('refuses an identity without a subject', () => {
    expect(() => mappedClaims(entryWith({}), { email: 'a@b.example' })).toThrow(UpstreamFailure);
  });

  it('allowedDomains admits only a verified email at one of the domains, in any case', () => {
    const entry = entryWith({ allowedDomains: ['Corp.example'] });
    expect(() => checkAllowedDomain(entry, mappedClaims(entry, { sub: '1', email: 'a@corp.EXAMPLE', email_verified: true }))).not.toThrow();
    expect(() => checkAllowedDomain(entry, mappedClaims(entry, { sub: '1', email: 'a@corp.example', email_verified: false }))).toThrow(
      /no verified email/,
    );
    expect(() => checkAllowedDomain(entry, mappedClaims(entry, { sub: '1', email: 'a@sub.corp.example', email_verified: true }))).toThrow(
      /not allowed/,
    );
    // Two @ is no address: its last part is not its domain.
    const twoAts = { sub: '1', email: 'a@evil.example@corp.example', email_verified: true };
    expect(() => checkAllowedDomain(entry, mappedClaims(entry, twoAts))).toThrow(/no verified email/);
  });
});
