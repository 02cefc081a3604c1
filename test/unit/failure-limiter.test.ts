import { describe, expect, it } from 'vitest';
import { FailureLimiter } from '../../src/oauth/limits/failure-limiter.js';

const limits = { enabled: true, maxFailures: 3, windowSeconds: 60, lockoutSeconds: 300 };
const at = (seconds: number) => new Date(Date.UTC(2026, 0, 1) + seconds * 1000);

describe('failure limiter (SPEC 5 rateLimit)', () => {
  it('locks a key out for lockoutSeconds after maxFailures failures within the window', () => {
    const limiter = new FailureLimiter(limits);
    limiter.recordFailure(['a'], at(0));
    limiter.recordFailure(['a'], at(1));
    expect(limiter.retryAfter(['a'], at(2))).toBe(0);
    limiter.recordFailure(['a'], at(2));
    expect(limiter.retryAfter(['a'], at(2))).toBe(300);
    expect(limiter.retryAfter(['a'], at(101))).toBe(201);
    expect(limiter.retryAfter(['a'], at(302))).toBe(0);
  });

  it('forgets failures older than the window', () => {
    const limiter = new FailureLimiter(limits);
    limiter.recordFailure(['bob'], at(0));
    limiter.recordFailure(['bob'], at(10));
    limiter.recordFailure(['bob'], at(70));
    expect(limiter.retryAfter(['bob'], at(70))).toBe(0);
  });

  it('answers for the longest lockout among the given keys; reset forgets failures, not a lockout', () => {
    const limiter = new FailureLimiter(limits);
    for (let i = 0; i < 3; i += 1) limiter.recordFailure(['a', 'x'], at(i));
    expect(limiter.retryAfter(['b', 'x'], at(10))).toBe(292);
    limiter.recordFailure(['y'], at(10));
    limiter.reset('y');
    expect(limiter.failures('y', at(10))).toBe(0);
    limiter.reset('x');
    expect(limiter.retryAfter(['x'], at(10))).toBe(292);
  });

  it('does nothing when rateLimit.enabled is false', async () => {
    const limiter = new FailureLimiter({ ...limits, enabled: false });
    for (let i = 0; i < 10; i += 1) limiter.recordFailure(['a'], at(i));
    expect(limiter.retryAfter(['a'], at(10))).toBe(0);
    expect((await limiter.reserve(['a'], () => at(10))).retryAfter).toBe(0);
  });

  it('keeps at most maxKeys counts, forgetting the least recently active', () => {
    const limiter = new FailureLimiter({ ...limits, maxFailures: 2 }, { maxKeys: 2 });
    limiter.recordFailure(['a'], at(0));
    limiter.recordFailure(['b'], at(1));
    limiter.recordFailure(['c'], at(2));
    limiter.recordFailure(['a'], at(3));
    expect(limiter.retryAfter(['a'], at(3))).toBe(0);
    limiter.recordFailure(['c'], at(3));
    expect(limiter.retryAfter(['c'], at(3))).toBe(300);
  });

  it('a flood of new keys never erases a live lockout (finding 3: 910 addresses erased one)', () => {
    const limiter = new FailureLimiter({ ...limits, maxFailures: 1 }, { maxKeys: 10 });
    limiter.recordFailure(['victim-of-guessing'], at(0));
    for (let i = 0; i < 5_000; i += 1) limiter.recordFailure([`flood-${i}`], at(1));
    expect(limiter.retryAfter(['victim-of-guessing'], at(2))).toBe(298);
  });

  it('when the lockouts themselves overflow, an expired one goes first, then the one ending soonest', () => {
    const limiter = new FailureLimiter({ ...limits, maxFailures: 1 }, { maxLockouts: 2 });
    limiter.recordFailure(['first'], at(0));
    limiter.recordFailure(['second'], at(10));
    limiter.recordFailure(['third'], at(20));
    expect(limiter.retryAfter(['first'], at(20))).toBe(0);
    expect(limiter.retryAfter(['second'], at(20))).toBe(290);
    expect(limiter.retryAfter(['third'], at(20))).toBe(300);
  });

  it('tells onLockout which key was locked and for how long', () => {
    const locked: Array<[string, number]> = [];
    const limiter = new FailureLimiter({ ...limits, maxFailures: 1 }, { onLockout: (key, seconds) => locked.push([key, seconds]) });
    limiter.recordFailure(['a'], at(0));
    expect(locked).toEqual([['a', 300]]);
  });
});

describe('reservations: attempts counted before a slow check (finding 2: 60 logins at once passed a limit of 10)', () => {
  it('60 guesses at once: maxFailures are checked, and once they fail the waiting ones are refused', async () => {
    const limiter = new FailureLimiter(limits);
    let now = at(0);
    const outcomes = Array.from({ length: 60 }, () => limiter.reserve(['pair'], () => now));
    now = at(1);
    const granted: Array<{ settle(failed: boolean, now: Date): void }> = [];
    for (const outcome of outcomes.slice(0, 3)) granted.push((await outcome).reservation!);
    for (const reservation of granted) reservation.settle(true, at(1));
    const rest = await Promise.all(outcomes.slice(3));
    expect(rest.every((outcome) => outcome.reservation === null && outcome.retryAfter === 300)).toBe(true);
    expect(limiter.retryAfter(['pair'], at(1))).toBe(300);
  });

  it('attempts beyond maxFailures wait for a place instead of being refused: twelve correct ones all go through', async () => {
    const limiter = new FailureLimiter(limits);
    const outcomes = Array.from({ length: 12 }, () => limiter.reserve(['pair'], () => at(0)));
    let granted = 0;
    for (const outcome of outcomes) {
      const { reservation } = await outcome;
      expect(reservation).not.toBeNull();
      granted += 1;
      reservation!.settle(false, at(0));
    }
    expect(granted).toBe(12);
    expect(limiter.failures('pair', at(0))).toBe(0);
  });

  it('a successful attempt frees its place and counts nothing', async () => {
    const limiter = new FailureLimiter(limits);
    for (let i = 0; i < 10; i += 1) (await limiter.reserve(['pair'], () => at(i))).reservation!.settle(false, at(i));
    expect(limiter.failures('pair', at(10))).toBe(0);
    expect(limiter.retryAfter(['pair'], at(10))).toBe(0);
  });

  it('attempts in flight are not evicted by a flood of other keys', async () => {
    const limiter = new FailureLimiter({ ...limits, maxFailures: 2 }, { maxKeys: 5 });
    const pending = (await limiter.reserve(['pair'], () => at(0))).reservation!;
    limiter.recordFailure(['pair'], at(0));
    for (let i = 0; i < 100; i += 1) limiter.recordFailure([`flood-${i}`], at(1));
    pending.settle(true, at(2));
    expect(limiter.retryAfter(['pair'], at(2))).toBe(300);
  });
});
