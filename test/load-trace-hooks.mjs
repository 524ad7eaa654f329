// The loader hooks of load-trace.mjs (they run on the loader's own thread in Node 20).
import { appendFileSync } from 'node:fs';

let out;

export function initialize(data) {
  out = data.out;
}

export async function load(url, context, next) {
  if (out && url.startsWith('file:')) appendFileSync(out, `${url}\n`);
  return next(url, context);
}
