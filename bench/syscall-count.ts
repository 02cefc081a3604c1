// System calls of a process over some work, counted by `strace -f -c -p PID` (bench/profile.ts --strace): a CPU
// profile shows time in writev but not how many calls, and on a shared machine that time includes being
// descheduled after waking the receiver; the count tells whether a server makes more calls per request.
import { spawn } from 'node:child_process';

/** Calls per syscall name made by `pid` while `work` runs; null when strace is missing or may not attach. */
export async function countSyscalls(pid: number, work: () => Promise<void>): Promise<Record<string, number> | null> {
  const strace = spawn('strace', ['-f', '-c', '-p', String(pid)], { stdio: ['ignore', 'ignore', 'pipe'] });
  let output = '';
  strace.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => {
    strace.once('exit', resolve);
    strace.once('error', () => resolve(-1));
  });
  // Attaching to every thread takes a moment; work started before it would go partly uncounted.
  for (let waited = 0; waited < 5000 && !/attached/.test(output) && strace.exitCode === null; waited += 50)
    await new Promise((resolve) => setTimeout(resolve, 50));
  if (!/attached/.test(output)) {
    strace.kill('SIGKILL');
    await exited;
    return null;
  }
  await new Promise((resolve) => setTimeout(resolve, 200));
  await work();
  strace.kill('SIGINT');
  await exited;
  // The summary table: % time, seconds, usecs/call, calls, [errors], syscall.
  const calls: Record<string, number> = {};
  for (const line of output.split('\n')) {
    const fields = line.trim().split(/\s+/);
    if (fields.length < 5 || !/^\d+\.\d+$/.test(fields[0]!) || fields.at(-1) === 'total') continue;
    calls[fields.at(-1)!] = Number(fields[3]);
  }
  return calls;
}
