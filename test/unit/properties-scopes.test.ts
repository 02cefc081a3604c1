import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  allScopesAllowed,
  effectiveDefaultScopes,
  formatScopes,
  isWellFormedScopeParam,
  narrowScopes,
  parseScopes,
} from '../../src/oauth/scopes.js';

// RFC 6749 section 6: a refreshed token's scope "MUST NOT include any scope not originally granted", and
// section 3.3: the server decides the scope. test/unit/properties.test.ts checks narrowScopes on a fixed
// alphabet; here the whole path a scope parameter takes, from arbitrary text, as the refresh grant runs it.

const scopeToken: fc.Arbitrary<string> = fc.constantFrom(
  'read',
  'write',
  'admin',
  'profile',
  'email',
  'a:b',
  'READ',
  'read ',
  'réad',
  "'",
  '*',
);
const whitespace = fc.constantFrom(' ', '  ', '\t', '\n', '\r', '\v', '\f', '\u00a0', '\u3000');
const scopeParameter = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 80 }),
  fc.array(fc.tuple(scopeToken, whitespace), { maxLength: 8 }).map((parts) => parts.flat().join('')),
);
const granted: fc.Arbitrary<string[]> = fc.uniqueArray(fc.constantFrom('read', 'write', 'admin', 'profile', 'email', 'a:b'), {
  maxLength: 6,
});

/** What the refresh grant does with a scope parameter (src/oauth/grants/refresh-token.ts refreshedScopes). */
function refreshed(parameter: string, original: string[]): string[] | 'invalid_scope' {
  if (!isWellFormedScopeParam(parameter)) return 'invalid_scope';
  return narrowScopes(parseScopes(parameter), original) ?? 'invalid_scope';
}

describe('scope narrowing never widens (RFC 6749 sections 3.3 and 6)', () => {
  it('whatever text is sent as scope, the refreshed scopes are distinct and all originally granted', () => {
    fc.assert(
      fc.property(scopeParameter, granted, (parameter, original) => {
        const result = refreshed(parameter, original);
        if (result === 'invalid_scope') return;
        expect(new Set(result).size).toBe(result.length);
        for (const scope of result) expect(original).toContain(scope);
        expect(allScopesAllowed(result, original)).toBe(true);
      }),
      { numRuns: 5000 },
    );
  });

  it('narrowing twice is never wider than narrowing once (a chain of refreshes only shrinks)', () => {
    fc.assert(
      fc.property(scopeParameter, scopeParameter, granted, (first, second, original) => {
        const once = refreshed(first, original);
        if (once === 'invalid_scope') return;
        const twice = refreshed(second, once);
        if (twice !== 'invalid_scope') for (const scope of twice) expect(once).toContain(scope);
      }),
      { numRuns: 3000 },
    );
  });

  it('a scope that was not granted is always invalid_scope, wherever it appears in the parameter', () => {
    fc.assert(
      fc.property(
        granted,
        fc.array(
          scopeToken.filter((s) => /^\S+$/.test(s)),
          { maxLength: 4 },
        ),
        fc.nat(),
        (original, extra, at) => {
          const foreign = ['admin', 'write', 'email'].find((scope) => !original.includes(scope));
          if (foreign === undefined) return;
          const tokens = [...original, ...extra.filter((s) => original.includes(s))];
          tokens.splice(at % (tokens.length + 1), 0, foreign);
          expect(refreshed(tokens.join(' '), original)).toBe('invalid_scope');
        },
      ),
    );
  });

  it('the default scopes of an application are within both the server defaults and the application scopes', () => {
    fc.assert(
      fc.property(granted, granted, (defaults, application) => {
        const effective = effectiveDefaultScopes(defaults, application);
        for (const scope of effective) expect(defaults).toContain(scope);
        if (application.length > 0) for (const scope of effective) expect(application).toContain(scope);
      }),
    );
  });

  it('formatting and parsing again is the identity on parsed scopes', () => {
    fc.assert(
      fc.property(scopeParameter, (parameter) => {
        expect(parseScopes(formatScopes(parseScopes(parameter)))).toEqual(parseScopes(parameter));
      }),
    );
  });
});
