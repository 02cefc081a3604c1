import { describe, expect, it } from 'vitest';
import { isStandaloneRead } from '../../src/storage/failover-retry.js';

// A connection failure mid-statement is retried only for statements that cannot have written (issue 20).
describe('isStandaloneRead', () => {
  it('counts a SELECT and the batched lookup, a union of parenthesised SELECTs', () => {
    expect(isStandaloneRead('SELECT 1')).toBe(true);
    expect(isStandaloneRead({ name: 'one', text: '  select id FROM oauth_access_tokens WHERE token = $1' })).toBe(true);
    const batched = '(SELECT id FROM oauth_access_tokens WHERE token = $1) UNION ALL (SELECT id FROM oauth_access_tokens WHERE token = $2)';
    expect(isStandaloneRead({ name: 'access_tokens_by_2_tokens', text: batched })).toBe(true);
  });

  it('never counts a write, nor a WITH that may hide one', () => {
    expect(isStandaloneRead('INSERT INTO oauth_access_tokens (token) VALUES ($1)')).toBe(false);
    expect(isStandaloneRead('UPDATE oauth_access_tokens SET revoked_at = now()')).toBe(false);
    expect(isStandaloneRead('WITH gone AS (DELETE FROM oauth_access_grants RETURNING id) SELECT count(*) FROM gone')).toBe(false);
    expect(isStandaloneRead('SELECTED_NOTHING')).toBe(false);
  });
});
