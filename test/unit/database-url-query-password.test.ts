import { describe, expect, it } from 'vitest';
import { redactUrl } from '../../src/storage/database-url.js';

// docs/operations.md "PostgreSQL": DATABASE_URL is reported with the password replaced by ***, also where libpq and
// node-postgres take it from, the query (`?password=...`), and the client key's passphrase (`sslpassword`).
describe('DATABASE_URL as reported (banner, listening line, connection failures)', () => {
  it('redactUrl hides password= and sslpassword= in the query, and keeps the URL otherwise as written', () => {
    expect(redactUrl('postgresql://oauth@127.0.0.1:5432/oauth?password=SECRET')).toBe(
      'postgresql://oauth@127.0.0.1:5432/oauth?password=***',
    );
    expect(redactUrl('postgresql:///oauth?host=/run/pg&password=SECRET&sslmode=require')).toBe(
      'postgresql:///oauth?host=/run/pg&password=***&sslmode=require',
    );
    expect(redactUrl('postgres://oauth@db/oauth?sslmode=verify-full&sslkey=/k.pem&sslpassword=PASSPHRASE#x')).toBe(
      'postgres://oauth@db/oauth?sslmode=verify-full&sslkey=/k.pem&sslpassword=***',
    );
    expect(redactUrl('postgresql://oauth:s3cret@db/oauth?password=SECRET')).toBe('postgresql://oauth:***@db/oauth?password=***');
    expect(redactUrl('postgresql://oauth@db/oauth?application_name=password')).toBe(
      'postgresql://oauth@db/oauth?application_name=password',
    );
  });

  it('compares names in any case and percent-decoded (node-postgres decodes them), without throwing on malformed escapes', () => {
    expect(redactUrl('postgresql://oauth@db/oauth?PassWord=SECRET')).toBe('postgresql://oauth@db/oauth?PassWord=***');
    expect(redactUrl('postgresql://oauth@db/oauth?%70assword=SECRET&%zz=1')).toBe('postgresql://oauth@db/oauth?%70assword=***&%zz=1');
    expect(redactUrl('postgresql://oauth@db/oauth?x=%&password=SEC?RET%')).toBe('postgresql://oauth@db/oauth?x=%&password=***');
    expect(redactUrl('postgresql://oauth@db/oauth?options=-c%20a%3Db?password=SECRET')).toBe(
      'postgresql://oauth@db/oauth?options=-c%20a%3Db?password=***',
    );
  });
});
