import { describe, expect, it } from 'vitest';
import { closestKey, editDistance } from '../../src/config/key-suggestion.js';

describe('the "did you mean" of an unknown config key (issue 32)', () => {
  it('editDistance counts inserted, deleted and replaced characters, and two swapped neighbours as one edit', () => {
    expect(editDistance('', '')).toBe(0);
    expect(editDistance('port', 'port')).toBe(0);
    expect(editDistance('', 'abc')).toBe(3);
    expect(editDistance('acessTokenExpiresIn', 'accessTokenExpiresIn')).toBe(1);
    expect(editDistance('graceSecond', 'graceSeconds')).toBe(1);
    expect(editDistance('hots', 'host')).toBe(1);
    expect(editDistance('introspetcion', 'introspection')).toBe(1);
    expect(editDistance('kitten', 'sitting')).toBe(3);
    expect(editDistance('port', 'host')).toBe(2);
  });

  it('closestKey names the nearest known key within about one edit in four characters, ignoring case, or none', () => {
    const known = ['baseUrl', 'host', 'port', 'introspection', 'accessTokenExpiresIn', 'authorizationCodeExpiresIn'];
    expect(closestKey('instrospection', known)).toBe('introspection');
    expect(closestKey('baseURL', known)).toBe('baseUrl');
    expect(closestKey('acessTokenExpiresIn', known)).toBe('accessTokenExpiresIn');
    expect(closestKey('prt', known)).toBe('port');
    expect(closestKey('colour', known)).toBeNull();
    expect(closestKey('pots', known)).toBeNull();
    expect(closestKey('anything', [])).toBeNull();
  });
});
