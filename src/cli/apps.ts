import { UsageError, type CliIo } from './io.js';

// Not built yet.
export async function runAppsCommand(_args: string[], _io: CliIo): Promise<number> {
  throw new UsageError("'apps' is not available yet");
}
