import { describe, expect, it } from 'vitest';
import { audienceProblem, type AudienceRule } from '../../packages/guard/src/audience.js';
import { metadataUrls } from '../../packages/guard/src/authorization-server-discovery.js';
import { resourceSettings } from '../../packages/guard/src/resource-metadata.js';
import type { GuardToken } from '../../packages/guard/src/types.js';

const local = (resource: string) =>
  resourceSettings({ introspect: async () => null, resource, authorizationServers: ['https://auth.example.com'] });

describe('guard: where the protected resource metadata is (RFC 9728 section 3.1)', () => {
  it.each([
    ['https://api.example.com', 'https://api.example.com/.well-known/oauth-protected-resource'],
    ['https://api.example.com/', 'https://api.example.com/.well-known/oauth-protected-resource'],
    ['https://api.example.com/mcp', 'https://api.example.com/.well-known/oauth-protected-resource/mcp'],
    ['https://api.example.com:8443/v1/mcp/', 'https://api.example.com:8443/.well-known/oauth-protected-resource/v1/mcp/'],
    ['http://127.0.0.1:4000/mcp', 'http://127.0.0.1:4000/.well-known/oauth-protected-resource/mcp'],
  ])('%s -> %s', (resource, url) => {
    const settings = local(resource);
    expect(settings?.metadataUrl).toBe(url);
    expect(settings?.metadataPaths[0]).toBe(new URL(url).pathname);
    // Section 3.3: the document's resource is the identifier exactly as configured.
    expect(settings?.document.resource).toBe(resource);
  });

  it('has no metadata without a resource, except in jwt mode where the resource is required', () => {
    expect(resourceSettings({ introspect: async () => null })).toBeNull();
    expect(() => resourceSettings({ mode: 'jwt', issuer: 'https://auth.example.com' } as never)).toThrow(/resource/);
  });

  it('refuses authorization servers and documentation that are not absolute https URLs, and bad scopes', () => {
    const base = { introspect: async () => null, resource: 'https://api.example.com' };
    expect(() => resourceSettings({ ...base, authorizationServers: ['auth.example.com'] })).toThrow(/authorizationServers/);
    expect(() => resourceSettings({ ...base, resourceDocumentation: 'http://docs.example.com' })).toThrow(/resourceDocumentation/);
    expect(() => resourceSettings({ ...base, scopesSupported: ['read write'] })).toThrow(/scope/);
  });
});

describe('guard: the issuer metadata URLs (RFC 8414 section 3.1, OpenID Discovery section 4)', () => {
  it('inserts the suffix before the issuer path, then tries the appended OpenID form', () => {
    expect(metadataUrls('https://auth.example.com')).toEqual([
      'https://auth.example.com/.well-known/oauth-authorization-server',
      'https://auth.example.com/.well-known/openid-configuration',
    ]);
    expect(metadataUrls('https://auth.example.com/tenant')).toEqual([
      'https://auth.example.com/.well-known/oauth-authorization-server/tenant',
      'https://auth.example.com/tenant/.well-known/openid-configuration',
    ]);
  });
});

describe('guard: the audience rule (RFC 8707)', () => {
  const RESOURCE = 'https://api.example.com/mcp';
  const token = (audience?: string[]): GuardToken => ({
    active: true,
    scopes: [],
    clientId: 'c',
    resourceOwnerId: null,
    expiresAt: null,
    audience,
  });
  const lenient: AudienceRule = { resource: RESOURCE, acceptTokensWithoutAudience: true };
  const strict: AudienceRule = { resource: RESOURCE, acceptTokensWithoutAudience: false, noAudience: ['https://auth.example.com'] };

  it('passes a token whose audience includes the resource, exactly', () => {
    expect(audienceProblem(token([RESOURCE]), strict)).toBeNull();
    expect(audienceProblem(token(['https://other.example.com', RESOURCE]), strict)).toBeNull();
    expect(audienceProblem(token([`${RESOURCE}/`]), strict)).toBe('audience');
    expect(audienceProblem(token(['https://api.example.com']), lenient)).toBe('audience');
  });

  it('passes a token without an audience only when the rule accepts those; the issuer alone counts as none', () => {
    expect(audienceProblem(token(), lenient)).toBeNull();
    expect(audienceProblem(token([]), lenient)).toBeNull();
    expect(audienceProblem(token(), strict)).toBe('audience');
    expect(audienceProblem(token(['https://auth.example.com']), strict)).toBe('audience');
    expect(audienceProblem(token(['https://auth.example.com']), { ...strict, acceptTokensWithoutAudience: true })).toBeNull();
  });
});
