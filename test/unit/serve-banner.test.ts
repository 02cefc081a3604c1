import { describe, expect, it } from 'vitest';
import { startBanner, type BannerFacts } from '../../src/cli/serve-banner.js';

const facts: BannerFacts = {
  baseUrl: 'http://127.0.0.1:3000',
  address: 'http://127.0.0.1:3000',
  database: '/srv/data',
  configFile: null,
  adminConfigured: false,
  derivedBaseUrl: false,
  cli: 'npm run cli --',
  openid: false,
  insecureIssuer: null,
  applications: 0,
  users: 0,
};

// Issue 32: which configuration was loaded, and "Next steps" that say each thing once.
describe('the banner of oauth-service serve', () => {
  it('names the config file, or says there is none', () => {
    expect(startBanner(facts)).toContain('\nconfig: none (defaults)\n');
    expect(startBanner({ ...facts, configFile: '/srv/config.json' })).toContain('\nconfig: /srv/config.json\n');
  });

  it('a fresh install: every next step once', () => {
    const banner = startBanner(facts);
    expect(banner).toContain('Next steps:\n  create an application:  npm run cli -- apps create');
    expect(banner).toContain('  create a user:          npm run cli -- users create');
    expect(banner).toContain('  admin UI:               set ADMIN_PASSWORD');
    expect(banner).not.toMatch(/\d+ applications?, /);
  });

  it('with seven applications, users and an admin password: no step is repeated, one line of facts says what there is', () => {
    const banner = startBanner({ ...facts, applications: 7, users: 1, adminConfigured: true });
    expect(banner).not.toContain('Next steps');
    expect(banner).not.toContain('apps create');
    expect(banner.match(/apps list/g)).toHaveLength(1);
    expect(banner).toContain('\n7 applications, 1 user (npm run cli -- apps list, npm run cli -- users list)\n');
    expect(banner).toContain('\nadmin UI: http://127.0.0.1:3000/oauth/applications\n');
  });

  it('only what is left: applications but no user', () => {
    const banner = startBanner({ ...facts, applications: 2 });
    expect(banner).toContain('Next steps:\n  create a user:');
    expect(banner).not.toContain('create an application');
  });

  it('a BASE_URL with a trailing slash gives the addresses the server serves, without a double slash', () => {
    const banner = startBanner({ ...facts, baseUrl: 'https://id.example.com/tenant/', openid: true, adminConfigured: true });
    expect(banner).toContain('\nOpenID Provider: https://id.example.com/tenant/.well-known/openid-configuration\n');
    expect(banner).toContain('\nadmin UI: https://id.example.com/tenant/oauth/applications\n');
    expect(banner).not.toContain('//.well-known');
  });

  it('carries the insecure-issuer warning', () => {
    expect(startBanner({ ...facts, insecureIssuer: 'the issuer http://x is not https' })).toContain(
      '\nWARNING: the issuer http://x is not https\n',
    );
  });
});
