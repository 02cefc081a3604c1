import { describe, expect, it } from 'vitest';
import { publicBasePath, publicPath } from '../../src/http/public-base-path.js';

describe('publicBasePath and publicPath: the URL a browser reaches a route at behind a proxy that strips the issuer path', () => {
  it("publicBasePath is baseUrl's path without a trailing slash, '' for an issuer at the root", () => {
    expect(publicBasePath('https://auth.example.com')).toBe('');
    expect(publicBasePath('https://auth.example.com/')).toBe('');
    expect(publicBasePath('https://auth.example.com/tenant')).toBe('/tenant');
    expect(publicBasePath('https://auth.example.com/tenant/')).toBe('/tenant');
    expect(publicBasePath('https://auth.example.com/org/tenant')).toBe('/org/tenant');
  });

  it('publicPath prefixes a root-relative path, query and all', () => {
    expect(publicPath('/tenant', '/login')).toBe('/tenant/login');
    expect(publicPath('/tenant', '/oauth/authorize?client_id=a&state=%2F')).toBe('/tenant/oauth/authorize?client_id=a&state=%2F');
  });

  it('publicPath leaves absolute, scheme-relative and relative URLs alone, and every path of a root issuer', () => {
    expect(publicPath('/tenant', 'https://client.example.com/callback?code=x')).toBe('https://client.example.com/callback?code=x');
    expect(publicPath('/tenant', 'https://auth.example.com/tenant/device')).toBe('https://auth.example.com/tenant/device');
    expect(publicPath('/tenant', '//evil.example/x')).toBe('//evil.example/x');
    expect(publicPath('/tenant', '/\\evil.example/x')).toBe('/\\evil.example/x');
    expect(publicPath('/tenant', '?page=2')).toBe('?page=2');
    expect(publicPath('/tenant', 'otpauth://totp/x')).toBe('otpauth://totp/x');
    expect(publicPath('', '/login')).toBe('/login');
  });
});
