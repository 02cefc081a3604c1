import { describe, expect, it } from 'vitest';
import { parseOptions, UsageError } from '../../src/cli/io.js';

// The CLI's options parser (src/cli/io.ts): node:util parseArgs in strict mode, its errors one line. A value that
// looks like a negative number is given to the option that takes it, so that the option's own check says what is
// wrong with it, where parseArgs alone answered "Option '--limit' argument is ambiguous."
const OPTIONS = { limit: { type: 'string' }, file: { type: 'string', short: 'f' }, 'dry-run': { type: 'boolean' } } as const;

const usageError = (args: string[]) => {
  try {
    parseOptions(args, OPTIONS);
  } catch (error) {
    if (error instanceof UsageError) return error.message;
    throw error;
  }
  throw new Error(`no usage error for ${args.join(' ')}`);
};

describe('parseOptions', () => {
  it('gives a negative number after an option that takes a value to that option, long or short', () => {
    expect(parseOptions(['--limit', '-3'], OPTIONS).values.limit).toBe('-3');
    expect(parseOptions(['--limit', '-2.5', '--dry-run'], OPTIONS).values).toEqual({ limit: '-2.5', 'dry-run': true });
    expect(parseOptions(['-f', '-1'], OPTIONS).values.file).toBe('-1');
    expect(parseOptions(['--config', '-5'], OPTIONS).values.config).toBe('-5');
    expect(parseOptions(['--limit=-3'], OPTIONS).values.limit).toBe('-3');
  });

  it('leaves everything else to parseArgs: other dashed values, boolean options, and what follows --', () => {
    expect(usageError(['--limit', '-x'])).toBe("Option '--limit' argument is ambiguous.");
    expect(usageError(['--limit', '--dry-run'])).toBe("Option '--limit' argument is ambiguous.");
    expect(usageError(['--dry-run', '-3'])).toBe("Unknown option '-3'");
    expect(usageError(['--limit'])).toBe("Option '--limit <value>' argument missing");
    const { values, positionals } = parseOptions(['--dry-run', '--', '--limit', '-3'], OPTIONS, true);
    expect(values).toEqual({ 'dry-run': true });
    expect(positionals).toEqual(['--limit', '-3']);
  });
});
