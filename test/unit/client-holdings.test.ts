import { describe, expect, it } from 'vitest';
import { loadConfig, type ConfigError } from '../../src/config/loader.js';
import type { ConfigInput } from '../../src/config/types.js';
import { heldDefaultScopes, heldScopes, holdsGrantType } from '../../src/oauth/clients/client-holdings.js';
import type { ApplicationRecord } from '../../src/oauth/store.js';

// Issue 29 item 1: what a client may hold (src/oauth/clients/client-holdings.ts), and the registration allowances the config
// loader resolves (registration.allowedScopes' default depends on defaultScopes and openid.enabled).

const config = (input: ConfigInput = {}) =>
  loadConfig({ input: { defaultScopes: ['read'], optionalScopes: ['write', 'admin'], ...input } as ConfigInput });

const application = (changes: Partial<ApplicationRecord>) =>
  ({
    registeredBy: 'admin',
    scopes: [],
    grantTypes: null,
    approvedAt: null,
    operatorGrantTypes: [],
    operatorScopes: [],
    ...changes,
  }) as ApplicationRecord;

describe('heldScopes and heldDefaultScopes', () => {
  const settings = config();

  it("an admin's application keeps Doorkeeper's rule: its own scopes, or every server scope when it lists none", () => {
    expect(heldScopes(application({}), settings)).toEqual(['read', 'write', 'admin']);
    expect(heldScopes(application({ scopes: ['write'] }), settings)).toEqual(['write']);
    expect(heldDefaultScopes(application({}), settings)).toEqual(['read']);
    expect(heldDefaultScopes(application({ scopes: ['write'] }), settings)).toEqual([]);
    expect(heldScopes(null, settings)).toEqual(['read', 'write', 'admin']);
  });

  it('a self-registered client that registered no scope holds the default scopes the policy allows, never every server scope', () => {
    for (const registeredBy of ['dynamic', 'metadata_document'] as const) {
      expect(heldScopes(application({ registeredBy }), settings)).toEqual(['read']);
      expect(heldDefaultScopes(application({ registeredBy }), settings)).toEqual(['read']);
    }
    const nothingAllowed = config({ registration: { allowedScopes: ['write'] } });
    expect(heldScopes(application({ registeredBy: 'dynamic' }), nothingAllowed)).toEqual([]);
    expect(heldDefaultScopes(application({ registeredBy: 'dynamic' }), nothingAllowed)).toEqual([]);
  });

  it('a self-registered client holds what it registered within the policy and its initial access token', () => {
    const registered = application({ registeredBy: 'dynamic', scopes: ['read', 'write'] });
    expect(heldScopes(registered, settings)).toEqual(['read']);
    expect(heldScopes({ ...registered, operatorScopes: ['write'] }, settings)).toEqual(['read', 'write']);
    expect(heldScopes(registered, config({ registration: { allowedScopes: ['read', 'write'] } }))).toEqual(['read', 'write']);
  });
});

describe('holdsGrantType', () => {
  const settings = config({ registration: { allowedGrantTypes: ['authorization_code', 'refresh_token', 'client_credentials'] } });
  const machine = application({ registeredBy: 'dynamic', grantTypes: ['client_credentials'] });

  it("an admin's application uses every grant the server enables", () => {
    expect(holdsGrantType(application({}), 'client_credentials', config())).toBe(true);
  });

  it('a self-registered client uses the grants it registered that the policy allows', () => {
    const code = application({ registeredBy: 'dynamic', grantTypes: ['authorization_code', 'refresh_token'] });
    expect(holdsGrantType(code, 'refresh_token', settings)).toBe(true);
    expect(holdsGrantType(code, 'client_credentials', settings)).toBe(false);
    expect(holdsGrantType(code, 'refresh_token', config({ registration: { allowedGrantTypes: ['authorization_code'] } }))).toBe(false);
  });

  it('client_credentials needs the operator for the client: its initial access token, or an approval', () => {
    expect(holdsGrantType(machine, 'client_credentials', settings)).toBe(false);
    expect(holdsGrantType({ ...machine, approvedAt: new Date() }, 'client_credentials', settings)).toBe(true);
    expect(holdsGrantType({ ...machine, operatorGrantTypes: ['client_credentials'] }, 'client_credentials', config())).toBe(true);
    // An approval does not reach past the policy.
    expect(holdsGrantType({ ...machine, approvedAt: new Date() }, 'client_credentials', config())).toBe(false);
  });
});

describe('registration.allowedScopes and allowedGrantTypes in the config loader', () => {
  it('default: defaultScopes, plus the OpenID Connect scopes (offline_access too) while openid.enabled; authorization_code and refresh_token', () => {
    expect(config().registration).toMatchObject({ allowedScopes: ['read'], allowedGrantTypes: ['authorization_code', 'refresh_token'] });
    const openid = loadConfig({
      input: { openid: { enabled: true }, defaultScopes: ['read', 'openid'] },
      env: { KEY_ENCRYPTION_KEY: 'k'.repeat(64) },
    });
    expect(openid.registration.allowedScopes).toEqual(['read', 'openid', 'profile', 'email', 'address', 'phone', 'offline_access']);
  });

  it('an explicit list must be server scopes, named in the boot error', () => {
    const problems = () => {
      try {
        config({ registration: { allowedScopes: ['read', 'delete', 'openid'] } });
      } catch (error) {
        return (error as ConfigError).problems;
      }
      return [];
    };
    expect(problems()).toEqual([
      'registration.allowedScopes: delete is not one of defaultScopes or optionalScopes',
      'registration.allowedScopes: openid is not one of defaultScopes or optionalScopes',
    ]);
    expect(config({ registration: { allowedScopes: [] } }).registration.allowedScopes).toEqual([]);
  });
});
