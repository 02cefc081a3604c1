import { describe, expect, it } from 'vitest';
import { isMediaType } from '../../src/oauth/assertions/assertion-checks.js';

// RFC 7515 section 4.1.9: typ is a media type, compared case-insensitively, "application/" optional when there is no "/".

describe('isMediaType (a JWT typ compared as RFC 7515 section 4.1.9 says)', () => {
  it.each([
    ['oauth-id-jag+jwt', 'oauth-id-jag+jwt'],
    ['application/oauth-id-jag+jwt', 'oauth-id-jag+jwt'],
    ['OAUTH-ID-JAG+JWT', 'oauth-id-jag+jwt'],
    ['Application/OAuth-Id-Jag+JWT', 'oauth-id-jag+jwt'],
    ['jwt', 'JWT'],
    ['application/JWT', 'JWT'],
  ])('%s is %s', (typ, expected) => expect(isMediaType(typ, expected)).toBe(true));

  it.each([
    ['oauth-id-jag+jwt ', 'oauth-id-jag+jwt'],
    ['text/oauth-id-jag+jwt', 'oauth-id-jag+jwt'],
    ['JWT', 'oauth-id-jag+jwt'],
    ['logout+jwt', 'JWT'],
    ['at+jwt', 'JWT'],
    ['', 'JWT'],
  ])('%j is not %s', (typ, expected) => expect(isMediaType(typ, expected)).toBe(false));

  it('a typ that is no string is no media type', () => {
    for (const typ of [undefined, null, 1, ['JWT'], { typ: 'JWT' }]) expect(isMediaType(typ, 'JWT')).toBe(false);
  });
});
