import { UsageError, type CliIo } from './io.js';

// Not built yet.
export async function runTokensCommand(_args: string[], _io: CliIo): Promise<number> {
  throw new UsageError("'tokens' is not available yet");
}
