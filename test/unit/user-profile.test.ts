import { describe, expect, it } from 'vitest';
import { parseAddress, resolveProfile, type ProfileInput } from '../../src/oauth/users/user-profile.js';
import { passwordErrors, usernameErrors } from '../../src/oauth/users/users.js';
import { NO_CLAIMS } from '../helpers/user-claims.js';

const errorsOf = (input: ProfileInput) => resolveProfile(NO_CLAIMS, input).errors;

describe('user claims (OpenID Connect Core 5.1)', () => {
  it('accepts a complete, well-formed profile and returns what changes', () => {
    // Claims stored as typed; the name is trimmed and the address stored as JSON text.
    const asTyped = {
      givenName: 'Alice',
      email: 'alice@example.com',
      emailVerified: true,
      phoneNumber: '+1 (425) 555-1212;ext=5678',
      profile: 'https://example.com/alice',
      picture: 'http://images.example.com/alice.png',
      birthdate: '0000-02-29',
      zoneinfo: 'Europe/Paris',
      locale: 'en_US',
    };
    const address = { street_address: '1 Main St\r\nApt 2', country: 'UK' };
    const { changes, errors } = resolveProfile(NO_CLAIMS, { name: ' Alice Liddell ', ...asTyped, address });
    expect(errors).toEqual({});
    expect(changes).toEqual({ name: 'Alice Liddell', ...asTyped, address: JSON.stringify(address) });
  });

  it.each<[string, ProfileInput, string, string]>([
    ['email without @', { email: 'alice.example.com' }, 'email', 'Email must be an email address, such as alice@example.com'],
    ['email with spaces', { email: 'a lice@example.com' }, 'email', 'Email must be an email address'],
    ['javascript: profile', { profile: 'javascript:alert(1)' }, 'profile', 'Profile must be an absolute https or http URL'],
    ['relative picture', { picture: '/me.png' }, 'picture', 'Picture must be an absolute https or http URL'],
    ['data: website', { website: 'data:text/html,hi' }, 'website', 'Website must be an absolute https or http URL'],
    ['a URL that breaks out of an attribute', { website: 'https://x.example/"><img src=x>' }, 'website', 'Website must not contain'],
    ['birthdate in another format', { birthdate: '25/12/1990' }, 'birthdate', 'Birthdate must be YYYY or YYYY-MM-DD'],
    ['impossible birthdate', { birthdate: '1990-02-30' }, 'birthdate', 'Birthdate must be YYYY or YYYY-MM-DD'],
    ['year 0000 alone', { birthdate: '0000' }, 'birthdate', 'Birthdate must be YYYY or YYYY-MM-DD'],
    ['unknown time zone', { zoneinfo: 'Mars/Olympus' }, 'zoneinfo', 'Zoneinfo must be a time zone of the IANA database'],
    ['malformed locale', { locale: 'english please' }, 'locale', 'Locale must be a BCP47 language tag'],
    ['phone number without digits', { phoneNumber: 'call me' }, 'phone_number', 'Phone number must be printable ASCII with digits'],
    ['phone number with a tab', { phoneNumber: '+1\t555' }, 'phone_number', 'Phone number must not contain control characters'],
    ['name over 255 characters', { name: 'x'.repeat(256) }, 'name', 'Name is too long (maximum is 255 characters)'],
    ['nickname with a NUL', { nickname: 'a\u0000b' }, 'nickname', 'Nickname must not contain control characters'],
    ['a newline in a locality', { address: { locality: 'a\nb' } }, 'address_locality', 'Locality must not contain control characters'],
    ['an address member that is not a string', { address: { country: 42 } }, 'address_country', 'Country must be a string'],
  ])('refuses %s with a message naming the claim', (_case, input, field, message) => {
    const errors = errorsOf(input);
    expect(Object.keys(errors)).toEqual([field]);
    expect(errors[field]!.join(' ')).toContain(message);
  });

  it('accepts the edge cases Core allows: a year alone, 255 characters, an emoji name, UTC', () => {
    expect(errorsOf({ birthdate: '1990', name: '🐇'.repeat(255), zoneinfo: 'UTC', locale: 'fr-CA', gender: 'other' })).toEqual({});
  });

  it('an empty or blank string clears a claim; an absent one stays; an unchanged one is no change', () => {
    const current = { ...NO_CLAIMS, name: 'Alice', email: 'alice@example.com', locale: 'en' };
    const { changes, errors } = resolveProfile(current, { name: '', email: '   ', locale: 'en', emailVerified: false });
    expect(errors).toEqual({});
    expect(changes).toEqual({ name: null, email: null });
  });

  it('address members merge into the current address; clearing the last one clears the address', () => {
    const current = { ...NO_CLAIMS, address: JSON.stringify({ locality: 'Paris', country: 'FR' }) };
    const merged = resolveProfile(current, { address: { postal_code: '75001', locality: '' } }).changes.address!;
    expect(parseAddress(merged)).toEqual({ postal_code: '75001', country: 'FR' });
    expect(resolveProfile({ ...current, address: merged }, { address: { postal_code: '', country: null } }).changes).toEqual({
      address: null,
    });
    expect(resolveProfile(current, { address: null }).changes).toEqual({ address: null });
  });

  it('parseAddress ignores stored text that is not an address object', () => {
    expect(parseAddress('not json')).toEqual({});
    expect(parseAddress('[1]')).toEqual({});
    expect(parseAddress('{"country":"FR","extra":1,"region":2}')).toEqual({ country: 'FR' });
  });

  it('usernames and passwords have rules of their own', () => {
    expect(usernameErrors('')).toEqual(["Username can't be blank"]);
    expect(usernameErrors(' alice')).toEqual(['Username must not start or end with spaces']);
    expect(usernameErrors('al\u0007ice')).toEqual(['Username must not contain control characters']);
    expect(usernameErrors('alice')).toEqual([]);
    // The characters application names refuse: "eve\u202Elive" reads as "eveevil", "dana\u200B" as "dana".
    expect(usernameErrors('eve\u202Elive')).toEqual(['Username must not contain U+202E (it changes how the name reads, or shows nothing)']);
    expect(usernameErrors('dana\u200B')).toEqual(['Username must not contain U+200B (it changes how the name reads, or shows nothing)']);
    expect(usernameErrors('Nguyễn Thị Minh Khai')).toEqual([]);
    expect(passwordErrors('short')).toEqual(['Password is too short (minimum is 8 characters, it has 5)']);
    expect(passwordErrors('long enough')).toEqual([]);
    // Counted as hashed (NFKC): seven accented letters typed with combining accents are seven characters, not fourteen.
    expect(passwordErrors('e\u0301'.repeat(7))).toEqual(['Password is too short (minimum is 8 characters, it has 7)']);
    expect(passwordErrors('e\u0301'.repeat(8))).toEqual([]);
    expect(passwordErrors('p'.repeat(1024))).toEqual([]);
    expect(passwordErrors('p'.repeat(1025))).toEqual(['Password is too long (maximum is 1024 characters, it has 1025)']);
  });
});
