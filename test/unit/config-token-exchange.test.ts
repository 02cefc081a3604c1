import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/loader.js';
import { problemsOf } from '../helpers/config-problems.js';

// config tokenExchange (issue 34 item 4): defaults, and a bad idJagAudiences entry fails the boot with its path.

const audience = { audience: 'https://as.example.com', clientId: 'agent', clients: ['web'] };

describe('config tokenExchange', () => {
  it('defaults to no impersonation and no ID-JAG audience, and fills in an entry', () => {
    expect(loadConfig({ input: {} }).tokenExchange).toEqual({ impersonationClients: [], idJagAudiences: [] });
    const config = loadConfig({ input: { openid: { enabled: true }, tokenExchange: { idJagAudiences: [audience] } } });
    expect(config.tokenExchange.idJagAudiences).toEqual([{ ...audience, resource: null, lifetimeSeconds: 60 }]);
  });

  it('names the problem of each bad entry', () => {
    const problems = problemsOf({
      baseUrl: 'https://sso.example.com',
      tokenExchange: { idJagAudiences: [audience, audience, { ...audience, audience: 'https://sso.example.com/' }] },
    });
    expect(problems).toEqual(
      expect.arrayContaining([
        'tokenExchange.idJagAudiences.1.audience: https://as.example.com is listed twice',
        'tokenExchange.idJagAudiences.2.audience: is this server (baseUrl); ID-JAGs are for other authorization servers',
        'tokenExchange.idJagAudiences: needs openid.enabled (an ID-JAG is exchanged for an ID token)',
      ]),
    );
    expect(problemsOf({ tokenExchange: { idJagAudiences: [{ ...audience, clientId: undefined }] } }).join('\n')).toContain('clientId');
    expect(problemsOf({ tokenExchange: { idJagAudiences: [{ ...audience, lifetimeSeconds: 3600 }] } }).join('\n')).toContain(
      'lifetimeSeconds',
    );
  });
});
