import { describe, expect, it } from 'vitest';
import { boundedJson, MAX_JSON_NESTING, nestedTooDeeply, shownJson } from '../../src/oauth/json-nesting.js';

// JSON.stringify overflows the stack on a few thousand levels: what others send is refused past 32.
describe('nestedTooDeeply', () => {
  const arrays = (levels: number) => JSON.parse('['.repeat(levels) + ']'.repeat(levels));
  const objects = (levels: number) => JSON.parse('{"a":'.repeat(levels) + 'null' + '}'.repeat(levels));

  it('counts objects and arrays alike, the outermost as the first level: 32 pass, 33 do not', () => {
    expect(MAX_JSON_NESTING).toBe(32);
    for (const make of [arrays, objects]) {
      expect(nestedTooDeeply(make(32))).toBe(false);
      expect(nestedTooDeeply(make(33))).toBe(true);
    }
    expect(nestedTooDeeply([{ a: [{ b: [] }] }])).toBe(false);
  });

  it('finds the deep member wherever it is, and takes text and numbers as no nesting', () => {
    expect(nestedTooDeeply({ keys: [{ kty: 'EC' }, { kty: 'EC', extra: arrays(40) }] })).toBe(true);
    for (const value of ['['.repeat(100), 7, null, true, undefined]) expect(nestedTooDeeply(value)).toBe(false);
  });

  it('answers for nesting far beyond what JSON.stringify survives, looking no deeper than the limit', () => {
    const deep = arrays(200_000);
    expect(() => JSON.stringify(deep)).toThrow(RangeError);
    expect(nestedTooDeeply(deep)).toBe(true);
  });
});

describe('boundedJson', () => {
  const arrays = (levels: number) => JSON.parse('['.repeat(levels) + ']'.repeat(levels));

  it('is JSON.stringify for a value within the limit, the limit itself included', () => {
    for (const value of [{ keys: [{ kty: 'EC', x: 'a', n: [1, { b: null }] }] }, arrays(MAX_JSON_NESTING), ['text', 7, null]])
      expect(boundedJson(value)).toBe(JSON.stringify(value));
  });

  it('keeps a value nested past the limit too deep for nestedTooDeeply, without overflowing the stack', () => {
    const text = boundedJson({ keys: [{ kty: 'EC', x: arrays(200_000) }] });
    expect(text.length).toBeLessThan(200);
    expect(nestedTooDeeply(JSON.parse(text))).toBe(true);
  });
});

describe('shownJson', () => {
  it('is the JSON text of a short value, a value without JSON its type', () => {
    expect(shownJson('ppid')).toBe('"ppid"');
    expect(shownJson(true)).toBe('true');
    expect(shownJson({ a: [1] })).toBe('{"a":[1]}');
    expect(shownJson(undefined)).toBe('undefined');
    expect(shownJson(() => 1)).toBe('function');
  });

  it('cuts a long value at 100 characters, and one nested thousands deep at the limit, without overflowing the stack', () => {
    expect(shownJson(['x'.repeat(500)])).toBe(`["${'x'.repeat(98)}...`);
    const deep = JSON.parse('['.repeat(200_000) + ']'.repeat(200_000));
    expect(shownJson(deep)).toBe(`${'['.repeat(34)}${']'.repeat(34)}`);
  });
});
