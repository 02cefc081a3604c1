import { describe, expect, it } from 'vitest';
import { redactUrl, withLocalSocket } from '../../src/storage/database-url.js';

describe('DATABASE_URL handling', () => {
  it('redactUrl hides the password, also where URL() cannot parse the URL (no host)', () => {
    expect(redactUrl('postgresql://oauth:s3cret@db.example.com:5432/oauth')).toBe('postgresql://oauth:***@db.example.com:5432/oauth');
    expect(redactUrl('postgresql://oauth:s3cret@/oauth')).toBe('postgresql://oauth:***@/oauth');
    // URL() takes the last `@` of the authority as the end of the password, and so does the mask.
    expect(redactUrl('postgres://dbuser:PW@AT1secret@127.0.0.1:4450/oauth')).toBe('postgres://dbuser:***@127.0.0.1:4450/oauth');
    expect(redactUrl('postgres://oauth@db/oauth')).toBe('postgres://oauth@db/oauth');
    expect(redactUrl('postgresql:///oauth')).toBe('postgresql:///oauth');
  });

  it('withLocalSocket sends a URL without a host to PGHOST, else the local socket folder; a host is kept', () => {
    expect(withLocalSocket('postgresql:///oauth', '/run/pg')).toBe('postgresql:///oauth?host=%2Frun%2Fpg');
    expect(withLocalSocket('postgresql://me:pw@/oauth?sslmode=disable', '/run/pg')).toBe(
      'postgresql://me:pw@/oauth?sslmode=disable&host=%2Frun%2Fpg',
    );
    expect(withLocalSocket('postgresql:///oauth', null)).toMatch(/^postgresql:\/\/\/oauth\?host=%2F(var%2Frun%2Fpostgresql|tmp)$/);
    expect(withLocalSocket('postgresql://db.example.com/oauth', '/run/pg')).toBe('postgresql://db.example.com/oauth');
    expect(withLocalSocket('postgresql:///oauth?host=/elsewhere', '/run/pg')).toBe('postgresql:///oauth?host=/elsewhere');
  });
});
