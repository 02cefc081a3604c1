import { describe, it, expect } from 'vitest';
import { extractClientCredentials } from '../../src/oauth/clients/client-credentials.js';
import { InvalidClient, InvalidRequest, OAuthError } from '../../src/oauth/errors.js';

// Credentials carry the address they came from: the failure limits count per client and address.
const ADDRESS = '192.0.2.1';

function basic(payload: string): string {
  return `Basic ${Buffer.from(payload, 'utf8').toString('base64')}`;
}

/** What a request with this Authorization header, and this body, authenticates as. */
const credentials = (authorization: string | undefined, body: Record<string, unknown> = {}) =>
  extractClientCredentials({ address: ADDRESS, authorization, body });

function thrown(run: () => unknown): OAuthError {
  try {
    run();
  } catch (error) {
    if (error instanceof OAuthError) return error;
    throw error;
  }
  throw new Error('expected an OAuthError');
}

describe('client_secret_basic (RFC 6749 section 2.3.1, RFC 7617)', () => {
  it('decodes id and secret', () => {
    expect(credentials(basic('my-client:s3cret'))).toEqual({
      method: 'client_secret_basic',
      clientId: 'my-client',
      secret: 's3cret',
      address: ADDRESS,
    });
  });

  it('accepts the scheme in any case and surrounding spaces (RFC 7235 section 2.1)', () => {
    const token = Buffer.from('id:secret').toString('base64');
    for (const header of [`basic ${token}`, `BaSiC ${token}`, `  Basic   ${token}  `]) {
      expect(credentials(header)).toMatchObject({ clientId: 'id', secret: 'secret' });
    }
  });

  it('form-urldecodes the id: %3A is a colon inside the id (appendix B)', () => {
    expect(credentials(basic('client%3Aone:secret'))).toMatchObject({ clientId: 'client:one', secret: 'secret' });
  });

  it('form-urldecodes "+" as a space and %XX as UTF-8 (appendix B)', () => {
    expect(credentials(basic('my+client:p%C3%A4ss+word%2B'))).toMatchObject({ clientId: 'my client', secret: 'päss word+' });
  });

  it('splits at the first colon: the secret may contain colons', () => {
    expect(credentials(basic('id:a:b:c'))).toMatchObject({ clientId: 'id', secret: 'a:b:c' });
  });

  it('an empty password is a public client identifying itself through Basic', () => {
    expect(credentials(basic('public-app:'))).toEqual({
      method: 'client_secret_basic',
      clientId: 'public-app',
      secret: null,
      address: ADDRESS,
    });
  });

  it('accepts base64 without padding', () => {
    const unpadded = Buffer.from('id:secret1').toString('base64').replace(/=+$/, '');
    expect(credentials(`Basic ${unpadded}`)).toMatchObject({ secret: 'secret1' });
  });

  it.each([
    ['garbage base64', 'Basic !!!not-base64!!!'],
    ['base64url alphabet', `Basic ${Buffer.from('id:se??>cret').toString('base64url')}`],
    ['impossible length', 'Basic abcde'],
    ['misplaced padding', 'Basic ab=c'],
    ['no credentials', 'Basic'],
    ['two tokens', `Basic ${Buffer.from('id:s').toString('base64')} extra`],
    ['no colon', basic('just-an-id')],
    ['an empty client id', basic(':secret')],
    ['an empty payload', `Basic ${Buffer.from(':').toString('base64')}`],
    ['a bad percent-escape in the id', basic('id%zz:secret')],
    ['a bad percent-escape in the secret', basic('id:secret%')],
    ['percent-encoded invalid UTF-8', basic('id:%FF')],
    ['raw invalid UTF-8', `Basic ${Buffer.from([0x69, 0x64, 0x3a, 0xff]).toString('base64')}`],
  ])('rejects %s with invalid_client 401, never a 500 (SPEC 8)', (_label, authorization) => {
    const error = thrown(() => credentials(authorization));
    expect(error).toBeInstanceOf(InvalidClient);
    expect(error.status).toBe(401);
    expect((error as InvalidClient).triedBasic).toBe(true);
  });

  it('ignores other schemes: a Bearer header is not client authentication', () => {
    expect(credentials('Bearer abc')).toBeNull();
    expect(credentials('Bearer abc', { client_id: 'app' })).toEqual({
      method: 'none',
      clientId: 'app',
      secret: null,
      address: ADDRESS,
    });
    expect(credentials('Basicx abc')).toBeNull();
    expect(credentials('')).toBeNull();
  });
});

describe('client_secret_post and none (RFC 6749 section 2.3.1, SPEC 3.1)', () => {
  it('client_id and client_secret in the body', () => {
    expect(extractClientCredentials({ address: ADDRESS, body: { client_id: 'app', client_secret: 's' } })).toEqual({
      method: 'client_secret_post',
      clientId: 'app',
      secret: 's',
      address: ADDRESS,
    });
  });

  it('body values are taken literally (the form parser already decoded them)', () => {
    expect(extractClientCredentials({ address: ADDRESS, body: { client_id: 'a+b%3A', client_secret: 'x+y' } })).toMatchObject({
      clientId: 'a+b%3A',
      secret: 'x+y',
    });
  });

  it('client_id alone is a public client (none)', () => {
    expect(extractClientCredentials({ address: ADDRESS, body: { client_id: 'app' } })).toEqual({
      method: 'none',
      clientId: 'app',
      secret: null,
      address: ADDRESS,
    });
    expect(extractClientCredentials({ address: ADDRESS, body: { client_id: 'app', client_secret: '' } })).toEqual({
      method: 'none',
      clientId: 'app',
      secret: null,
      address: ADDRESS,
    });
  });

  it('no credentials at all, or a lone client_secret, is null', () => {
    expect(extractClientCredentials({ address: ADDRESS, body: {} })).toBeNull();
    expect(credentials(undefined, { grant_type: 'client_credentials' })).toBeNull();
    expect(extractClientCredentials({ address: ADDRESS, body: { client_secret: 'orphan' } })).toBeNull();
    expect(extractClientCredentials({ address: ADDRESS, body: { client_id: '' } })).toBeNull();
  });

  it.each([
    ['a repeated client_id', { client_id: ['a', 'b'] }],
    ['a repeated client_secret', { client_id: 'a', client_secret: ['x', 'y'] }],
    ['a nested client_id', { client_id: { x: 'a' } }],
    ['a numeric client_id', { client_id: 1 }],
  ])('rejects %s with the generic invalid_request (SPEC 3)', (_label, body) => {
    const error = thrown(() => extractClientCredentials({ address: ADDRESS, body }));
    expect(error).toBeInstanceOf(InvalidRequest);
    expect(error.description).toBe(new InvalidRequest().description);
  });
});

describe('more than one authentication method (RFC 6749 section 2.3, SPEC 8)', () => {
  it('Basic with a secret plus a body client_secret is multiple_client_auth_methods', () => {
    const error = thrown(() => credentials(basic('app:s'), { client_id: 'app', client_secret: 's' }));
    expect(error.code).toBe('invalid_request');
    expect(error.description).toBe(InvalidRequest.multipleClientAuthMethods().description);
  });

  it('a body client_secret next to any Basic header is two methods, even with an empty Basic password', () => {
    expect(thrown(() => credentials(basic('app:s'), { client_secret: 's' })).description).toBe(
      InvalidRequest.multipleClientAuthMethods().description,
    );
    expect(thrown(() => credentials(basic('app:'), { client_secret: 's' })).description).toBe(
      InvalidRequest.multipleClientAuthMethods().description,
    );
  });

  it('Basic plus a different body client_id is invalid_request, not "Basic wins"', () => {
    const error = thrown(() => credentials(basic('app:s'), { client_id: 'other' }));
    expect(error).toBeInstanceOf(InvalidRequest);
    expect(error.description).toBe('The client_id in the body names another client than the Authorization header.');
  });

  it('Basic plus the same body client_id and no body secret is Basic', () => {
    expect(credentials(basic('app:s'), { client_id: 'app' })).toEqual({
      method: 'client_secret_basic',
      clientId: 'app',
      secret: 's',
      address: ADDRESS,
    });
  });

  it('compares the body client_id with the decoded Basic id', () => {
    expect(credentials(basic('my+app:s'), { client_id: 'my app' })).toMatchObject({ clientId: 'my app' });
  });
});
