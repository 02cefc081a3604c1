import { hasControlCharacter } from '../oauth/control-characters.js';
import { passwordLength } from '../oauth/users/passwords.js';
import { createInterface } from 'node:readline';
import { StringDecoder } from 'node:string_decoder';
import { Writable } from 'node:stream';
import { UsageError, type CliIo } from './io.js';

/** Shorter human passwords are refused (NIST SP 800-63B section 5.1.1.2: at least 8 characters). */
export const MIN_PASSWORD_LENGTH = 8;

/** Usernames are matched exactly at /login, so surrounding spaces and control characters are refused. */
export function checkUsername(username: string): string {
  const hasControl = hasControlCharacter(username);
  if (username === '' || username.length > 255 || username.trim() !== username || hasControl) {
    throw new UsageError('the username must be 1 to 255 characters, without control characters or surrounding spaces');
  }
  return username;
}

/**
 * The password from --password, else the first line of stdin (so it stays out of the shell history and
 * the process list). On a terminal it is prompted for, without echo.
 */
export async function readPassword(
  io: CliIo,
  given: string | undefined,
  prompt: string,
  { minLength = MIN_PASSWORD_LENGTH, what = 'the password', from = '--password or one line on stdin' } = {},
): Promise<string> {
  const password = given ?? (io.stdin.isTTY ? await promptHidden(io, prompt) : await readFirstLine(io.stdin));
  if (password === '') throw new UsageError(`${what} is empty (give ${from})`);
  const length = passwordLength(password);
  if (length < minLength) throw new UsageError(`${what} must be at least ${minLength} characters (it has ${length})`);
  return password;
}

/** The first line, without its line ending; stops reading at the first newline. */
async function readFirstLine(stream: NodeJS.ReadableStream): Promise<string> {
  const decoder = new StringDecoder('utf8');
  let text = '';
  for await (const chunk of stream) {
    text += typeof chunk === 'string' ? chunk : decoder.write(chunk as Buffer);
    if (text.includes('\n')) break;
  }
  text += decoder.end();
  return text.split('\n')[0]!.replace(/\r$/, '');
}

function promptHidden(io: CliIo, prompt: string): Promise<string> {
  io.stderr(prompt);
  // readline echoes through `output`: a sink that drops everything keeps the password off the screen.
  const muted = new Writable({ write: (_chunk, _encoding, done) => done() });
  const lines = createInterface({ input: io.stdin, output: muted, terminal: true });
  return new Promise<string>((resolve, reject) => {
    let answered = false;
    lines.once('line', (line) => {
      answered = true;
      lines.close();
      resolve(line);
    });
    lines.once('SIGINT', () => lines.close());
    lines.once('close', () => {
      io.stderr('\n');
      if (!answered) reject(new UsageError('no password entered'));
    });
  });
}
