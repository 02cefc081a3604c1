import { describe, expect, it } from 'vitest';
import { coalescer } from '../../src/storage/coalescer.js';

// The batching under the token lookups (src/storage/coalescer.ts): calls made together share one batch, each call
// gets its own result, and a batch never answers a call made after it was sent.

function recordingBatches(answer: (key: number) => number | Error = (key) => key * 10) {
  const batches: number[][] = [];
  const run = async (keys: readonly number[]) => {
    batches.push([...keys]);
    await new Promise((resolve) => setTimeout(resolve, 1));
    const failure = keys.map(answer).find((result) => result instanceof Error);
    if (failure) throw failure;
    return keys.map((key) => answer(key) as number);
  };
  return { batches, run };
}

describe('coalescer', () => {
  it('runs the calls made in one turn of the event loop as one batch, each answered with its own result', async () => {
    const { batches, run } = recordingBatches();
    const find = coalescer(run, { maxBatch: 16 });
    expect(await Promise.all([find(1), find(2), find(3)])).toEqual([10, 20, 30]);
    expect(batches).toEqual([[1, 2, 3]]);
  });

  it('runs a lone call on its own at the end of the turn', async () => {
    const { batches, run } = recordingBatches();
    const find = coalescer(run, { maxBatch: 16 });
    expect(await find(7)).toBe(70);
    expect(batches).toEqual([[7]]);
  });

  it('sends a batch as soon as it holds maxBatch calls', async () => {
    const { batches, run } = recordingBatches();
    const find = coalescer(run, { maxBatch: 2 });
    expect(await Promise.all([1, 2, 3, 4, 5].map(find))).toEqual([10, 20, 30, 40, 50]);
    expect(batches).toEqual([[1, 2], [3, 4], [5]]);
  });

  it('never answers a call from a batch sent before it was made', async () => {
    let state = 'active';
    const batches: string[][] = [];
    const find = coalescer(
      async (keys: readonly string[]) => {
        const seen = state;
        batches.push([...keys]);
        await new Promise((resolve) => setTimeout(resolve, 5));
        return keys.map(() => seen);
      },
      { maxBatch: 16 },
    );
    const before = find('token');
    await new Promise((resolve) => setImmediate(resolve));
    state = 'revoked';
    const after = find('token');
    expect(await before).toBe('active');
    expect(await after).toBe('revoked');
    expect(batches).toEqual([['token'], ['token']]);
  });

  it('runs a batch that failed again key by key, so only the failing call fails', async () => {
    const { batches, run } = recordingBatches((key) => (key === 2 ? new Error('duplicate key value') : key * 10));
    const find = coalescer(run, { maxBatch: 16 });
    const results = await Promise.allSettled([find(1), find(2), find(3)]);
    expect(results.map((result) => (result.status === 'fulfilled' ? result.value : (result.reason as Error).message))).toEqual([
      10,
      'duplicate key value',
      30,
    ]);
    expect(batches).toEqual([[1, 2, 3], [1], [2], [3]]);
  });

  it('fails every call of a batch at once when the database cannot be reached, without retrying each', async () => {
    const unreachable = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
    const { batches, run } = recordingBatches(() => unreachable);
    const find = coalescer(run, { maxBatch: 16 });
    const results = await Promise.allSettled([find(1), find(2)]);
    expect(results.map((result) => result.status)).toEqual(['rejected', 'rejected']);
    expect(batches).toEqual([[1, 2]]);
  });

  it('with maxInFlight, gathers the calls made while the limit is reached into the next batch, sent when one returns', async () => {
    const batches: number[][] = [];
    let release!: () => void;
    const firstHeld = new Promise<void>((resolve) => (release = resolve));
    const find = coalescer(
      async (keys: readonly number[]) => {
        batches.push([...keys]);
        if (batches.length === 1) await firstHeld;
        return keys.map((key) => key * 10);
      },
      { maxBatch: 3, maxInFlight: 1 },
    );
    const first = find(1);
    await new Promise((resolve) => setImmediate(resolve));
    // Batch [1] is out (held until release): these wait for it, and then go three at a time.
    const waiting = [2, 3, 4, 5].map(find);
    await new Promise((resolve) => setImmediate(resolve));
    expect(batches).toEqual([[1]]);
    release();
    expect(await Promise.all([first, ...waiting])).toEqual([10, 20, 30, 40, 50]);
    expect(batches).toEqual([[1], [2, 3, 4], [5]]);
  });

  it('with maxInFlight, sends a lone call at the end of the turn when nothing is out', async () => {
    const { batches, run } = recordingBatches();
    const find = coalescer(run, { maxBatch: 16, maxInFlight: 1 });
    expect(await find(1)).toBe(10);
    expect(await find(2)).toBe(20);
    expect(batches).toEqual([[1], [2]]);
  });

  it('with maxInFlight, sends the key-by-key retries of a failed batch within the limit too', async () => {
    let out = 0;
    let mostOut = 0;
    const batches: number[][] = [];
    const find = coalescer(
      async (keys: readonly number[]) => {
        batches.push([...keys]);
        out += 1;
        mostOut = Math.max(mostOut, out);
        await new Promise((resolve) => setImmediate(resolve));
        out -= 1;
        if (keys.length > 1 || keys[0] === 3) throw new Error('duplicate key');
        return keys.map((key) => key * 10);
      },
      { maxBatch: 4, maxInFlight: 1 },
    );
    const results = await Promise.allSettled([1, 2, 3, 4].map(find));
    expect(results.map((result) => (result.status === 'fulfilled' ? result.value : 'failed'))).toEqual([10, 20, 'failed', 40]);
    expect(batches).toEqual([[1, 2, 3, 4], [1], [2], [3], [4]]);
    expect(mostOut).toBe(1);
  });
});
