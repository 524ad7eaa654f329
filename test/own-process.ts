// Test support: a service a test starts for itself (Prometheus, Alertmanager) and stops by its own
// PID, never by name, so another engineer's or the machine's instance of the same program is left
// alone.
import { spawn } from 'node:child_process';
import type { ChildProcess, StdioOptions } from 'node:child_process';

/** Starts `bin` with `args` as a child of this process. */
export function startOwned(bin: string, args: readonly string[], stdio: StdioOptions = 'ignore'): ChildProcess {
  return spawn(bin, args, { stdio });
}

/** Stops the child this test started: SIGTERM to its PID, SIGKILL if it has not exited after `graceMs`. */
export async function stopOwned(child: ChildProcess | undefined, graceMs = 5_000): Promise<void> {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
  await exited;
  clearTimeout(timer);
}
