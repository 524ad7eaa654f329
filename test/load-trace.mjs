// Preloaded with `node --import ./test/load-trace.mjs …`: appends the URL of every file module the
// ESM loader loads to the file named by $LOAD_TRACE, so a test can see what a command loaded.
import { register } from 'node:module';

register('./load-trace-hooks.mjs', { parentURL: import.meta.url, data: { out: process.env.LOAD_TRACE } });
