import { describe, expect, it } from 'vitest';
import { ClientRequestBudget } from '../../src/oauth/limits/client-request-budget.js';

// rateLimit.perClientPerMinute's count: one fixed window a minute per client.
describe('ClientRequestBudget', () => {
  const at = (seconds: number) => new Date(Date.UTC(2026, 0, 1) + seconds * 1000);

  it('lets perMinute requests of a client through in a minute, then says how long until its window ends', () => {
    const budget = new ClientRequestBudget(2);
    expect([budget.take('a', at(0)), budget.take('a', at(10)), budget.take('a', at(15))]).toEqual([0, 0, 45]);
    expect(budget.take('a', at(59.5))).toBe(1);
    expect(budget.take('b', at(20))).toBe(0);
  });

  it('starts a new window a minute after the last one started', () => {
    const budget = new ClientRequestBudget(1);
    expect(budget.take('a', at(0))).toBe(0);
    expect(budget.take('a', at(30))).toBe(30);
    expect(budget.take('a', at(60))).toBe(0);
    expect(budget.take('a', at(61))).toBe(59);
  });
});
