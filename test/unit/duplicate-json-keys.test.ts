import { describe, expect, it } from 'vitest';
import { firstDuplicateKey } from '../../src/config/duplicate-json-keys.js';

// apply refuses a provisioning file that names a member twice in one object (JSON.parse would keep the last).
describe('firstDuplicateKey', () => {
  it.each([
    ['{"users": [{"username": "a"}], "users": []}', '$.users'],
    ['{"applications": [{"uid": "a", "name": "A", "uid": "b"}]}', '$.applications[0].uid'],
    ['[1, {"x": {"y": 1, "y": 2}}]', '$[1].x.y'],
    // The same name however it is escaped.
    ['{"a": 1, "\\u0061": 2}', '$.a'],
    ['{ "a" : 1 ,\n "b" : { } , "a" : [ ] }', '$.a'],
  ])('%s: %s', (text, path) => {
    expect(JSON.parse(text)).toBeDefined();
    expect(firstDuplicateKey(text)).toBe(path);
  });

  it.each([
    '{"users": [], "resources": []}',
    // Names alike only in another object, or inside strings, are no duplicates.
    '[{"uid": "a"}, {"uid": "b"}]',
    '{"a": "\\"a\\": 1, \\"a\\": 2", "b": {"a": 1}}',
    '{"a": [true, false, null, -1.5e3, "}", "]"], "b": {}}',
    '"just a string"',
    ' 42 ',
    '{}',
    '[]',
  ])('%s: none', (text) => {
    expect(JSON.parse(text)).toBeDefined();
    expect(firstDuplicateKey(text)).toBeNull();
  });
});
