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

  // Its memory is bounded: at 100,000 clients in a minute, a new one makes room, from the windows that ended first.
  /** A budget of one request a minute at its bound: `first` took one at second 0, 99,999 others at `othersAt`. */
  const atBound = (first: string, othersAt: number) => {
    const budget = new ClientRequestBudget(1);
    budget.take(first, at(0));
    for (let index = 0; index < 99_999; index += 1) budget.take(`client-${index}`, at(othersAt));
    return budget;
  };

  it('at its bound, a new client makes room by dropping a window that ended, not one still counting', () => {
    const budget = atBound('ended', 30);
    expect(budget.take('client-0', at(31))).toBe(59);
    // 'ended' started at 0: dropped for 'newcomer'. client-0's window, started at 30, still refuses it.
    expect(budget.take('newcomer', at(61))).toBe(0);
    expect(budget.take('client-0', at(62))).toBe(28);
  });

  it('with no window ended, the oldest started goes: a client that spent its budget is forgotten only then', () => {
    const budget = atBound('oldest', 1);
    expect(budget.take('newcomer', at(2))).toBe(0);
    expect(budget.take('oldest', at(3))).toBe(0);
    expect(budget.take('client-1', at(4))).toBe(57);
  });
});
