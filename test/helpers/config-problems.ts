import { ConfigError, loadConfig } from '../../src/config/loader.js';

/** What the loader says is wrong with a config (each problem names its key), or [] when it loads. */
export function problemsOf(input: Record<string, unknown>, env: Record<string, string> = {}): string[] {
  try {
    loadConfig({ input, env });
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  return [];
}
