import { readFileSync } from 'node:fs';

// sessionSecretFile (issue 32): a secret mounted as a file (Docker and Kubernetes secrets) instead of an environment
// variable, which every process of the container and `docker inspect` can read. The trailing newline that `echo` or
// an editor leaves is not part of the secret.

/** The same floor as sessionSecret's minLength in schema.ts: the cookie key is derived from it. */
export const MIN_SESSION_SECRET_LENGTH = 32;

/** The secret in the file, or what is wrong with it (the secret itself is never in the message). */
export function readSessionSecretFile(path: string): { secret: string } | { problem: string } {
  let secret: string;
  try {
    secret = readFileSync(path, 'utf8').trim();
  } catch (error) {
    return { problem: `cannot read ${path}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}` };
  }
  if ([...secret].length < MIN_SESSION_SECRET_LENGTH)
    return { problem: `the secret in ${path} must be at least ${MIN_SESSION_SECRET_LENGTH} characters (openssl rand -hex 32 > ${path})` };
  return { secret };
}
