import { describe, expect, it } from 'vitest';
import { redactUrl } from '../../src/http/plugins/logger-options.js';

// docs/operations.md "Logs": secrets in a logged URL are redacted by the name the server reads, which is the name
// percent-decoded (and `+` a space): `%61ccess_token` is access_token to the query parser.
describe('redactUrl (the request log URL)', () => {
  it('redacts the values of secret and private query parameters, and keeps the others', () => {
    expect(redactUrl('/oauth/token/info?access_token=abc&scope=read')).toBe('/oauth/token/info?access_token=[Redacted]&scope=read');
    expect(redactUrl('/oauth/authorize?client_id=app&state=s1&login_hint=a%40b.c')).toBe(
      '/oauth/authorize?client_id=app&state=[Redacted]&login_hint=[Redacted]',
    );
    expect(redactUrl('/logout?id_token_hint=eyJ.a.b#top')).toBe('/logout?id_token_hint=[Redacted]#top');
    expect(redactUrl('/oauth/token')).toBe('/oauth/token');
    expect(redactUrl('/oauth/authorize?codex=1&state')).toBe('/oauth/authorize?codex=1&state');
  });

  it("redacts the credentials of registration and logout, ID tokens and the account forms' fields sent in a query", () => {
    expect(redactUrl('/oauth/register/c1?registration_access_token=rat&x=1')).toBe(
      '/oauth/register/c1?registration_access_token=[Redacted]&x=1',
    );
    expect(redactUrl('/oauth/register?initial_access_token=iat')).toBe('/oauth/register?initial_access_token=[Redacted]');
    expect(redactUrl('/x?logout_token=eyJ.a.b&id_token=eyJ.c.d')).toBe('/x?logout_token=[Redacted]&id_token=[Redacted]');
    expect(redactUrl('/account/password?current=old&password=new&confirmation=new&_csrf=t')).toBe(
      '/account/password?current=[Redacted]&password=[Redacted]&confirmation=[Redacted]&_csrf=[Redacted]',
    );
    expect(redactUrl('/login/second-factor?proof=123456')).toBe('/login/second-factor?proof=[Redacted]');
  });

  it('redacts a secret named in another case or with array brackets: the client meant the secret', () => {
    expect(redactUrl('/x?Access_Token=a&ACCESS_TOKEN=b&access_token[]=c&access_token[0]=d')).toBe(
      '/x?Access_Token=[Redacted]&ACCESS_TOKEN=[Redacted]&access_token[]=[Redacted]&access_token[0]=[Redacted]',
    );
    expect(redactUrl('/x?access_tokens=kept&scope[]=read')).toBe('/x?access_tokens=kept&scope[]=read');
  });

  it('compares names percent-decoded: %61ccess_token, %73tate and %6cogin_hint are redacted', () => {
    expect(redactUrl('/oauth/userinfo?%61ccess_token=tok3n')).toBe('/oauth/userinfo?%61ccess_token=[Redacted]');
    expect(redactUrl('/oauth/authorize?%73tate=s3cret&%6Cogin_hint=alice%40example.com&%63%6f%64%65=c0de')).toBe(
      '/oauth/authorize?%73tate=[Redacted]&%6Cogin_hint=[Redacted]&%63%6f%64%65=[Redacted]',
    );
    expect(redactUrl('/oauth/token/info?%2561ccess_token=kept')).toBe('/oauth/token/info?%2561ccess_token=kept');
  });

  it('reads `+` in a name as a space, as the query parser does', () => {
    expect(redactUrl('/x?access+token=kept&access_token+=kept')).toBe('/x?access+token=kept&access_token+=kept');
  });

  it('never throws on malformed escapes, and still redacts a name whose escapes decode', () => {
    expect(redactUrl('/x?%=1&%zz=2&%E0%A4%A=3&access_token=t%ZZ')).toBe('/x?%=1&%zz=2&%E0%A4%A=3&access_token=[Redacted]');
    expect(redactUrl('/x?%61ccess_token%=kept&%61ccess_token=t%')).toBe('/x?%61ccess_token%=kept&%61ccess_token=[Redacted]');
  });

  it('redacts a secret after a `?` inside another value, and the whole of a secret value holding a `?`', () => {
    expect(redactUrl('/x?next=/a?code=c0de&b=1')).toBe('/x?next=/a?code=[Redacted]&b=1');
    expect(redactUrl('/x?state=a?b=c&d=1')).toBe('/x?state=[Redacted]&d=1');
  });
});
