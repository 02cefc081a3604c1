import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/loader.js';
import { problemsOf } from '../helpers/config-problems.js';

// config trustedIssuers (issue 34 item 3): a bad entry fails the boot with its path and what is wrong with it.

const entry = { issuer: 'https://idp.example.com', jwksUri: 'https://idp.example.com/jwks', clients: ['agent'], scopes: ['read'] };

describe('config trustedIssuers', () => {
  it('fills in the defaults of an entry', () => {
    const config = loadConfig({ input: { trustedIssuers: [entry] } });
    expect(config.trustedIssuers).toEqual([
      {
        ...entry,
        audience: null,
        subjectClaim: 'sub',
        userMatch: 'sub',
        idJag: false,
        createUsers: false,
        refreshTokens: false,
        maxLifetimeSeconds: 300,
      },
    ]);
  });

  it('names the key of each malformed entry', () => {
    const problems = problemsOf({
      trustedIssuers: [
        { ...entry, jwksUri: undefined },
        { ...entry, issuer: 'idp' },
        { ...entry, userMatch: 'name' },
        { ...entry, clients: [] },
      ],
    });
    expect(problems).toContain("trustedIssuers.0: must have required property 'jwksUri'");
    expect(problems.some((problem) => problem.startsWith('trustedIssuers.1.issuer:'))).toBe(true);
    expect(problems).toContain('trustedIssuers.2.userMatch: must be one of "sub", "email"');
    expect(problems).toContain('trustedIssuers.3.clients: must NOT have fewer than 1 items');
  });

  it('refuses the JWT bearer grant without an issuer to trust (it would be advertised and redeem nothing)', () => {
    const grantFlows = ['authorization_code', 'urn:ietf:params:oauth:grant-type:jwt-bearer'];
    expect(problemsOf({ grantFlows })).toEqual([
      'grantFlows: urn:ietf:params:oauth:grant-type:jwt-bearer needs at least one trustedIssuers entry (no assertion could be redeemed)',
    ]);
    expect(problemsOf({ grantFlows, trustedIssuers: [entry] })).toEqual([]);
  });

  it('refuses an issuer listed twice, a scope the server does not offer, and this server as an issuer', () => {
    expect(
      problemsOf({
        baseUrl: 'https://auth.example.com',
        trustedIssuers: [entry, { ...entry, scopes: ['read', 'delete'] }, { ...entry, issuer: 'https://auth.example.com/' }],
      }),
    ).toEqual([
      'trustedIssuers.1.issuer: https://idp.example.com is listed twice',
      'trustedIssuers.1.scopes: delete is not a scope this server offers',
      'trustedIssuers.2.issuer: is this server (baseUrl); it cannot trust its own assertions',
    ]);
  });
});
