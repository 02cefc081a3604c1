import { describe, it, expect } from 'vitest';
import {
  allScopesAllowed,
  effectiveDefaultScopes,
  formatScopes,
  isWellFormedScopeParam,
  narrowScopes,
  parseScopes,
  sameScopeSet,
} from '../../src/oauth/scopes.js';

describe('scope parsing (RFC 6749 section 3.3, reference 8.1)', () => {
  it('splits on ASCII whitespace, drops empties and duplicates, keeps first-seen order', () => {
    expect(parseScopes('  read write\tread\n\nadmin  ')).toEqual(['read', 'write', 'admin']);
  });

  it('treats absent and blank values as no scopes', () => {
    expect(parseScopes(undefined)).toEqual([]);
    expect(parseScopes(null)).toEqual([]);
    expect(parseScopes('')).toEqual([]);
    expect(parseScopes(' \t ')).toEqual([]);
  });

  it('is case-sensitive: "Read" and "read" are different scopes', () => {
    expect(parseScopes('read Read')).toEqual(['read', 'Read']);
  });

  it('formats a list with single spaces', () => {
    expect(formatScopes(['read', 'write'])).toBe('read write');
    expect(formatScopes([])).toBe('');
    expect(formatScopes(parseScopes(' a  b '))).toBe('a b');
  });
});

describe('scope parameter syntax (RFC 6749 section 3.3, reference 8.2)', () => {
  it.each(['read', 'read write', ' read  write ', 'a:b', 'https://api.example.com/x', '!#[]~'])('accepts %j', (value) =>
    expect(isWellFormedScopeParam(value)).toBe(true),
  );

  it.each([
    ['empty', ''],
    ['only spaces', '   '],
    ['a tab', 'read\twrite'],
    ['a newline', 'read\nwrite'],
    ['a carriage return', 'read\rwrite'],
    ['a double quote', 'read "write"'],
    ['a backslash', 'read\\write'],
    ['non-ASCII', 'l\u00e9ire'],
    ['a control character', 'read\u0000'],
    ['DEL', 'read\u007f'],
  ])('rejects a value with %s', (_label, value) => {
    expect(isWellFormedScopeParam(value)).toBe(false);
  });

  it('rejects absent values', () => {
    expect(isWellFormedScopeParam(undefined)).toBe(false);
    expect(isWellFormedScopeParam(null)).toBe(false);
  });
});

describe('allowed scopes (reference 8.2)', () => {
  it('requires every requested scope to be allowed', () => {
    expect(allScopesAllowed(['read'], ['read', 'write'])).toBe(true);
    expect(allScopesAllowed(['read', 'admin'], ['read', 'write'])).toBe(false);
    expect(allScopesAllowed([], ['read'])).toBe(true);
    expect(allScopesAllowed(['read'], [])).toBe(false);
  });
});

describe('default scopes when none are requested (reference 4.2 and 8.3)', () => {
  it('an application without scopes gets the server defaults', () => {
    expect(effectiveDefaultScopes(['read', 'profile'], [])).toEqual(['read', 'profile']);
  });

  it('an application with scopes gets only the defaults it lists, in default order', () => {
    expect(effectiveDefaultScopes(['read', 'profile', 'email'], ['email', 'write', 'read'])).toEqual(['read', 'email']);
  });

  it('can be empty (the caller turns that into invalid_scope where the reference does)', () => {
    expect(effectiveDefaultScopes(['admin'], ['public', 'write', 'read', 'default'])).toEqual([]);
  });
});

describe('scope set equality (reference 17.5)', () => {
  it('ignores order and duplicates', () => {
    expect(sameScopeSet(['read', 'write'], ['write', 'read'])).toBe(true);
    expect(sameScopeSet(['read', 'read'], ['read'])).toBe(true);
    expect(sameScopeSet([], [])).toBe(true);
  });

  it('differs when either side has an extra scope', () => {
    expect(sameScopeSet(['read'], ['read', 'write'])).toBe(false);
    expect(sameScopeSet(['read', 'write'], ['read'])).toBe(false);
    expect(sameScopeSet(['read', 'admin'], ['read', 'write'])).toBe(false);
  });
});

describe('refresh scope narrowing (RFC 6749 section 6)', () => {
  it('returns the requested scopes when they are a subset of the original grant', () => {
    expect(narrowScopes(['read'], ['read', 'write'])).toEqual(['read']);
    expect(narrowScopes(['write', 'read'], ['read', 'write'])).toEqual(['write', 'read']);
  });

  it('returns null when a requested scope was not originally granted (never widens)', () => {
    expect(narrowScopes(['read', 'admin'], ['read', 'write'])).toBeNull();
    expect(narrowScopes(['read'], [])).toBeNull();
  });
});
