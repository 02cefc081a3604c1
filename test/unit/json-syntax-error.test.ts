import { describe, expect, it } from 'vitest';
import { jsonSyntaxProblem } from '../../src/config/json-syntax-error.js';

/** What jsonSyntaxProblem says about `text`, which must not be JSON. */
function problemOf(text: string): string {
  try {
    JSON.parse(text);
  } catch (error) {
    return jsonSyntaxProblem(text, error as SyntaxError);
  }
  throw new Error(`${text} is valid JSON`);
}

describe('a config file that is not JSON: line and column instead of a character position (issue 32)', () => {
  it('converts the position JSON.parse reports to the line and column an editor shows, from 1', () => {
    expect(problemOf('{\n  "port": 80,\n}')).toBe('line 3, column 1: Expected double-quoted property name');
    expect(problemOf('{ port: 80 }')).toBe("line 1, column 3: Expected property name or '}'");
    expect(problemOf('{"a": 1} x')).toBe('line 1, column 10: Unexpected non-whitespace character after JSON');
  });

  it('finds the position itself where JSON.parse gives none (an unexpected token), without quoting the text back', () => {
    expect(problemOf('{\n  "a": x\n}')).toBe("line 2, column 8: Unexpected token 'x'");
    expect(problemOf('{\n  "hashTokens": tru\n}')).toBe("line 2, column 20: Unexpected token '\\n'");
    // V8 quotes the text's first ten characters then ("root:*:202"...): a secrets file given by mistake stays unquoted.
    expect(problemOf('root:*:20243:0:99999:7:::\nbin:*')).toBe("line 1, column 1: Unexpected token 'r'");
  });

  it('a text that ends too early is reported at its end', () => {
    expect(problemOf('{\n  "port": 80,\n')).toBe('line 3, column 1: Expected double-quoted property name');
    expect(problemOf('{"a":')).toBe('line 1, column 6: Unexpected end of JSON input');
    expect(problemOf('')).toBe('line 1, column 1: Unexpected end of JSON input');
  });
});
