import { describe, expect, it } from 'vitest';
import { summarize, type CpuProfile } from '../../bench/profile-summary.js';

// A .cpuprofile as node --cpu-prof writes it: a call tree, the leaf node of each sample, microseconds between samples.
const frame = (functionName: string, url = '') => ({ functionName, url, lineNumber: 0 });
const profile: CpuProfile = {
  nodes: [
    { id: 1, callFrame: frame('(root)'), children: [2, 6, 7] },
    { id: 2, callFrame: frame('query', 'file:///app/node_modules/pg/lib/client.js'), children: [3, 4] },
    { id: 3, callFrame: frame('writev') },
    { id: 4, callFrame: frame('digest', 'node:internal/crypto/hash'), children: [] },
    { id: 6, callFrame: frame('(idle)') },
    { id: 7, callFrame: frame('introspect', 'file:///app/dist/oauth/introspection.js'), children: [8] },
    { id: 8, callFrame: frame('emit', 'node:events') },
  ],
  startTime: 1000,
  endTime: 1600,
  samples: [3, 4, 6, 8, 3, 8],
  timeDeltas: [0, 100, 100, 100, 100, 100],
};

describe('bench/profile-summary summarize', () => {
  it('charges each sample to the leaf-most known owner, socket writes apart, idle left out', () => {
    const { busyMs, categories } = summarize(profile);
    const ms = Object.fromEntries(categories.map((c) => [c.name, c.ms]));
    // Each sample owns the time to the next one; the last sample has none.
    expect(ms).toEqual({
      'pg driver (query, protocol, pool): socket write (system call)': 0.2,
      'hashing and random (node:crypto)': 0.1,
      'OAuth domain (src/oauth)': 0.1,
    });
    expect(busyMs).toBeCloseTo(0.4);
  });

  it('keeps only the samples of a window on the profile clock', () => {
    const { categories } = summarize(profile, { from: 1250, to: 1450 });
    expect(categories.map((c) => c.name)).toEqual([
      'OAuth domain (src/oauth)',
      'pg driver (query, protocol, pool): socket write (system call)',
    ]);
  });
});
