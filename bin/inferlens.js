#!/usr/bin/env node
// Runs the compiled CLI (dist/, built by `npm run build`, which `npm ci` runs).
import { existsSync } from 'node:fs';

const main = new URL('../dist/src/cli/main.js', import.meta.url);
if (!existsSync(main)) {
  console.error('inferlens is not built: run `npm run build` in the package folder (npm ci does it)');
  process.exit(2);
}
await import(main.href);
