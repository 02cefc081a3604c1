import { describe, expect, it } from 'vitest';
import { acceptsIntrospectionJwt } from '../../src/oauth/tokens/introspection-jwt.js';

// RFC 9701 section 4 with RFC 9110 section 12.5.1: when the Accept header asks for the JWT answer.

const JWT = 'application/token-introspection+jwt';

describe('acceptsIntrospectionJwt (RFC 9701 section 4)', () => {
  it.each([
    [JWT],
    ['APPLICATION/TOKEN-INTROSPECTION+JWT'],
    [`${JWT};q=0.001`],
    [`application/json;q=0.5, ${JWT}`],
    [`application/json, ${JWT}`],
    [`${JWT}, */*;q=0.1`],
    [`text/html, ${JWT};q=0.8, application/*;q=0.5`],
    [`  ${JWT}  ;  q=1.000  `],
    [[`application/json;q=0.2`, JWT]],
  ])('asks for the JWT: %j', (accept) => {
    expect(acceptsIntrospectionJwt(accept)).toBe(true);
  });

  it.each([
    [undefined],
    [''],
    ['*/*'],
    ['application/*'],
    ['application/json'],
    ['application/jwt'],
    [`${JWT}+extra`],
    [`${JWT};q=0`],
    [`${JWT};q=0.000`],
    [`${JWT};q=0.5, application/json`],
    [`${JWT};q=0.5, */*`],
    [`${JWT};q=0.5, application/*;q=0.6`],
    [`${JWT};q=1.5`],
    [`${JWT};q=high`],
    [`${JWT};q=0.1234`],
    [[`application/json`, `${JWT};q=0.9`]],
  ])('does not: %j', (accept) => {
    expect(acceptsIntrospectionJwt(accept)).toBe(false);
  });

  it('the most specific range covering application/json decides its q, not the highest one', () => {
    expect(acceptsIntrospectionJwt(`*/*, application/json;q=0.1, ${JWT};q=0.5`)).toBe(true);
    expect(acceptsIntrospectionJwt(`*/*;q=0.1, application/*;q=0.9, ${JWT};q=0.5`)).toBe(false);
  });
});
