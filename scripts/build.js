// `npm run build`: the TypeScript sources → the JavaScript the package runs (dist/), in two passes:
// src/ and demo/ as ES modules with .d.ts (tsconfig.build.json), and inferlens/sdk + inferlens/schema
// again as CommonJS for require() callers (tsconfig.cjs.json → dist/cjs/, marked {"type":
// "commonjs"}). Both passes are incremental: with nothing changed, a rebuild is only tsc's start-up.
// `npm ci` (prepare), `npm start` and `npm test` run it, so the README's two commands stay two.
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
for (const project of ['tsconfig.build.json', 'tsconfig.cjs.json'])
  execFileSync(process.execPath, [tsc, '-p', join(root, project)], { stdio: 'inherit', cwd: root });
mkdirSync(join(root, 'dist', 'cjs'), { recursive: true });
writeFileSync(join(root, 'dist', 'cjs', 'package.json'), '{ "type": "commonjs" }\n');
// When this build finished: test/global-setup.ts rebuilds before a test run only if a source is newer.
writeFileSync(join(root, 'dist', '.built'), `${new Date().toISOString()}\n`);
