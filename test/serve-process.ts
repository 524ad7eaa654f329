// Starts `inferlens serve` as a real child process (as a user would) and waits for its URL.
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { resolve } from 'node:path';

export const BIN = resolve(import.meta.dirname, '..', 'bin', 'inferlens.js');

export interface ServeProcess {
  url: string;
  child: ChildProcess;
  output: () => string;
}

/** `nodeArgs` go to node before the script (e.g. `--cpu-prof`, as `npm run bench -- --profile DIR` does). */
export function serveProcess(args: string[], env: Record<string, string> = {}, nodeArgs: string[] = []): Promise<ServeProcess> {
  const child = spawn(process.execPath, [...nodeArgs, BIN, 'serve', ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  return new Promise((resolveP, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start:\n${out}`)), 30_000);
    const onData = (d: Buffer) => {
      out += d.toString();
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolveP({ url: m[1]!, child, output: () => out });
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${code}:\n${out}`));
    });
  });
}

export function waitExit(child: ChildProcess): Promise<number | null> {
  return new Promise((r) => (child.exitCode !== null || child.signalCode !== null ? r(child.exitCode) : child.once('exit', (code) => r(code))));
}

/** SIGTERM and wait for the exit (a clean stop flushes the store). */
export function stopProcess(child: ChildProcess): Promise<number | null> {
  const exited = waitExit(child);
  child.kill('SIGTERM');
  return exited;
}
