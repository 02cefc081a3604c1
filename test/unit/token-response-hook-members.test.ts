import { describe, expect, it } from 'vitest';
import { tokenResponseSchema } from '../../src/http/schemas.js';
import { HOOKED_MEMBER_TYPES } from '../../src/oauth/grants/token-response-hook.js';

describe('the members a beforeTokenResponse hook may change', () => {
  it('are checked with the types the token response schema writes them with, every one of them', () => {
    const { access_token: _token, token_type: _type, ...members } = tokenResponseSchema.properties;
    const schemaTypes = Object.fromEntries(Object.entries(members).map(([name, schema]) => [name, schema.type]));
    expect(HOOKED_MEMBER_TYPES).toEqual(schemaTypes);
  });
});
