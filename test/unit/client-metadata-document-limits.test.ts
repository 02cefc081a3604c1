import { describe, expect, it } from 'vitest';
import {
  FetchSlots,
  FirstFetchAllowance,
  RefusalCache,
} from '../../src/oauth/clients/metadata-documents/client-metadata-document-limits.js';

// The per-instance bounds on Client ID Metadata Document fetches: refused URLs remembered for a fixed window, in a
// bounded number of entries; fetches in flight bounded in all and per host.

describe('RefusalCache', () => {
  it('remembers why a URL was refused for the window, then forgets it', () => {
    let now = 1_000_000;
    const cache = new RefusalCache(() => now, 30);
    cache.remember('https://a.example/c', 'the URL answered status 404');
    expect(cache.recent('https://a.example/c')).toBe('the URL answered status 404');
    expect(cache.recent('https://b.example/c')).toBeNull();
    now += 29_999;
    expect(cache.recent('https://a.example/c')).toBe('the URL answered status 404');
    now += 1;
    expect(cache.recent('https://a.example/c')).toBeNull();
    expect(cache.size).toBe(0);
  });

  it('a new refusal restarts the window; forget() drops it at once', () => {
    let now = 0;
    const cache = new RefusalCache(() => now, 30);
    cache.remember('u', 'first');
    now += 20_000;
    cache.remember('u', 'second');
    now += 20_000;
    expect(cache.recent('u')).toBe('second');
    cache.forget('u');
    expect(cache.recent('u')).toBeNull();
  });

  it('never holds more than maxEntries: expired ones go first, then the oldest', () => {
    let now = 0;
    const cache = new RefusalCache(() => now, 30, 3);
    cache.remember('old', 'r');
    now += 31_000;
    cache.remember('a', 'r');
    cache.remember('b', 'r');
    cache.remember('c', 'r');
    expect(cache.size).toBe(3);
    expect(cache.recent('old')).toBeNull();
    for (const url of ['a', 'b', 'c']) expect(cache.recent(url), url).toBe('r');
    cache.remember('d', 'r');
    expect(cache.size).toBe(3);
    expect(cache.recent('a')).toBeNull();
    for (const url of ['b', 'c', 'd']) expect(cache.recent(url), url).toBe('r');
    for (let index = 0; index < 100; index += 1) cache.remember(`flood-${index}`, 'r');
    expect(cache.size).toBe(3);
  });
});

describe('FetchSlots', () => {
  const taken = (slot: ReturnType<FetchSlots['take']>) => {
    if ('busy' in slot) throw new Error(slot.busy);
    return slot.release;
  };

  it('gives at most maxPerHost slots to one host (case-insensitive) and maxTotal in all', () => {
    const slots = new FetchSlots(5, 2);
    const releases = [taken(slots.take('a.example')), taken(slots.take('A.EXAMPLE'))];
    expect(slots.take('a.example')).toEqual({ busy: '2 document fetches to a.example are already in flight' });
    releases.push(taken(slots.take('b.example')), taken(slots.take('b.example')), taken(slots.take('c.example')));
    expect(slots.inFlight).toBe(5);
    expect(slots.take('d.example')).toEqual({ busy: '5 document fetches are already in flight' });
    releases[0]!();
    expect(slots.take('a.example')).toHaveProperty('release');
  });

  it('a release counts once, however often it is called', () => {
    const slots = new FetchSlots(2, 2);
    const release = taken(slots.take('a.example'));
    taken(slots.take('a.example'));
    release();
    release();
    expect(slots.inFlight).toBe(1);
    taken(slots.take('a.example'));
    expect(slots.take('a.example')).toHaveProperty('busy');
  });
});

describe('FirstFetchAllowance (issue 29 item 4)', () => {
  it('allows `max` first fetches per address in a minute, each address apart, and renews after the minute', () => {
    let now = 1_000_000;
    const allowance = new FirstFetchAllowance(2, () => now);
    expect([allowance.take('a'), allowance.take('a'), allowance.take('a')]).toEqual([true, true, false]);
    expect(allowance.take('b')).toBe(true);
    now += 59_999;
    expect(allowance.take('a')).toBe(false);
    now += 1;
    expect(allowance.take('a')).toBe(true);
  });

  it('0 is no limit', () => {
    const allowance = new FirstFetchAllowance(0, () => 0);
    expect(Array.from({ length: 100 }, () => allowance.take('a')).every(Boolean)).toBe(true);
    expect(allowance.size).toBe(0);
  });

  it('counts at most maxEntries addresses, forgetting expired windows, then the oldest', () => {
    let now = 0;
    const allowance = new FirstFetchAllowance(1, () => now, 3);
    for (const address of ['a', 'b', 'c']) allowance.take(address);
    now += 60_000;
    allowance.take('d');
    expect(allowance.size).toBe(1);
    for (const address of ['e', 'f', 'g']) allowance.take(address);
    expect(allowance.size).toBe(3);
    expect(allowance.take('d')).toBe(true);
  });
});
