import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

// The index of the hostile-input suite: the threat table of docs/security.md names, for every threat of issue 8, the tests
// that prove the defense, many of them outside test/security (cited there instead of written twice). This file
// keeps that table honest: every cited test exists under that name, and every file here is cited.

const root = join(import.meta.dirname, '..', '..');
const table = readFileSync(join(root, 'docs', 'security.md'), 'utf8');
const citations = [...table.matchAll(/`(test\/[\w/.-]+\.test\.ts)` › "([^"]+)"/g)].map(([, file, name]) => [file!, name!] as const);

describe('docs/security.md, the threat table', () => {
  it('cites tests', () => {
    expect(citations.length).toBeGreaterThan(50);
  });

  it.each(citations)('%s has a test named like "%s"', (file, name) => {
    const path = join(root, file);
    expect(existsSync(path), file).toBe(true);
    // A test name may be built from parts (it.each, template strings): the cited part is in the source as written,
    // with quotes escaped or not.
    const source = readFileSync(path, 'utf8').replace(/\\'/g, "'");
    expect(source).toContain(name);
  });

  it('cites every file of test/security', () => {
    const files = readdirSync(join(root, 'test', 'security')).filter(
      (file) => file.endsWith('.test.ts') && file !== 'security-index.test.ts',
    );
    const cited = new Set(citations.map(([file]) => file));
    expect(files.filter((file) => !cited.has(`test/security/${file}`))).toEqual([]);
  });

  it.each([
    'Redirect URI manipulation',
    'Open redirect through errors and through deny',
    'Open redirect after login',
    'Header and CRLF injection',
    'code replay',
    'code injection',
    'PKCE downgrade',
    'Refresh token replay',
    'Introspection by an unauthorized client',
    'Token scanning',
    "Revocation of another client's token",
    'Duplicate and nested parameters',
    'Client credentials in the query string',
    'Wrong content types',
    'CSRF',
    'Clickjacking',
    'Cross-site scripting',
    'Oversized bodies, parameters and headers',
    'SQL injection',
    'Races',
    'Database outage',
    'Memory exhaustion',
    'Lockout by strangers',
    'Password guessing at the token endpoint',
    'Concurrent guesses',
    'Lockout erasure',
    'User name probing',
    'Scopes removed',
    'Forged X-Forwarded-For',
    'Loopback port exception',
    'Slow request bodies',
    'Two client authentication methods',
  ])('has a row for %s, with at least one test', (threat) => {
    const row = table.split('\n').find((line) => line.startsWith('|') && line.toLowerCase().includes(threat.toLowerCase()));
    expect(row, threat).toBeDefined();
    expect(row).toMatch(/`test\/[\w/.-]+\.test\.ts` › "/);
  });
});
