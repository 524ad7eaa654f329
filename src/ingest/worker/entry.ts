/**
 * How to start a worker thread whose entry module lies beside the caller. Compiled JavaScript
 * (dist/, what `inferlens` runs) starts `<name>.js` itself. The TypeScript sources (tests, `node
 * --import tsx`) start a bootstrap that registers tsx first, since Node 20 does not apply
 * `--import tsx` to a worker's entry module (ERR_UNKNOWN_FILE_EXTENSION); tsx is then resolved
 * only there, so the compiled package does not need it.
 */
import type { WorkerOptions } from 'node:worker_threads';

export function workerEntry(callerUrl: string, name: string): { entry: string | URL; options: WorkerOptions } {
  if (callerUrl.endsWith('.js')) return { entry: new URL(`./${name}.js`, callerUrl), options: {} };
  const tsx = import.meta.resolve('tsx/esm/api');
  const url = new URL(`./${name}.ts`, callerUrl).href;
  return { entry: `import(${JSON.stringify(tsx)}).then((t) => { t.register(); return import(${JSON.stringify(url)}); });`, options: { eval: true } };
}
