import { UsageError, type CliIo } from './io.js';

// Not built yet.
export async function runUsersCommand(_args: string[], _io: CliIo): Promise<number> {
  throw new UsageError("'users' is not available yet");
}
