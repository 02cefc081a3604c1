import { describe, expect, it } from 'vitest';
import { FailureLimiter } from '../../src/http/hooks/failure-limiter.js';

const limits = { enabled: true, maxFailures: 3, windowSeconds: 60, lockoutSeconds: 300 };
const at = (seconds: number) => new Date(Date.UTC(2026, 0, 1) + seconds * 1000);

describe('login failure limiter (SPEC 5 rateLimit)', () => {
  it('locks a key out for lockoutSeconds after maxFailures failures within the window', () => {
    const limiter = new FailureLimiter(limits);
    limiter.recordFailure(['ip:a'], at(0));
    limiter.recordFailure(['ip:a'], at(1));
    expect(limiter.retryAfter(['ip:a'], at(2))).toBe(0);
    limiter.recordFailure(['ip:a'], at(2));
    expect(limiter.retryAfter(['ip:a'], at(2))).toBe(300);
    expect(limiter.retryAfter(['ip:a'], at(101))).toBe(201);
    expect(limiter.retryAfter(['ip:a'], at(302))).toBe(0);
  });

  it('forgets failures older than the window', () => {
    const limiter = new FailureLimiter(limits);
    limiter.recordFailure(['user:bob'], at(0));
    limiter.recordFailure(['user:bob'], at(10));
    limiter.recordFailure(['user:bob'], at(70));
    expect(limiter.retryAfter(['user:bob'], at(70))).toBe(0);
  });

  it('answers for the longest lockout among the given keys; reset clears one key', () => {
    const limiter = new FailureLimiter(limits);
    for (let i = 0; i < 3; i += 1) limiter.recordFailure(['ip:a', 'user:x'], at(i));
    expect(limiter.retryAfter(['ip:b', 'user:x'], at(10))).toBe(292);
    limiter.reset('user:x');
    expect(limiter.retryAfter(['ip:b', 'user:x'], at(10))).toBe(0);
    expect(limiter.retryAfter(['ip:a'], at(10))).toBe(292);
  });

  it('does nothing when rateLimit.enabled is false', () => {
    const limiter = new FailureLimiter({ ...limits, enabled: false });
    for (let i = 0; i < 10; i += 1) limiter.recordFailure(['ip:a'], at(i));
    expect(limiter.retryAfter(['ip:a'], at(10))).toBe(0);
  });

  it('keeps at most maxKeys keys, forgetting the least recently active', () => {
    const limiter = new FailureLimiter({ ...limits, maxFailures: 1 }, 2);
    limiter.recordFailure(['a'], at(0));
    limiter.recordFailure(['b'], at(1));
    limiter.recordFailure(['c'], at(2));
    expect(limiter.retryAfter(['a'], at(3))).toBe(0);
    expect(limiter.retryAfter(['b'], at(3))).toBeGreaterThan(0);
    expect(limiter.retryAfter(['c'], at(3))).toBeGreaterThan(0);
  });
});
