/** The demo's golden set (`spam-filter.yaml`, written once by `make.ts`) and where it lies. */
import { fileURLToPath } from 'node:url';

export const GOLDEN_SET_NAME = 'spam-filter-clear';
/** Beside this file's source (compiled code runs from dist/demo/golden/, the YAML stays in demo/golden/). */
export const GOLDEN_FILE = fileURLToPath(
  new URL(import.meta.url.endsWith('.js') ? '../../../demo/golden/spam-filter.yaml' : './spam-filter.yaml', import.meta.url),
);
