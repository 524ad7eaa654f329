/** The demo's golden set (`spam-filter.yaml`, written once by `make.ts`) and where it lies. */
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const GOLDEN_SET_NAME = 'spam-filter-clear';
export const GOLDEN_FILE = join(dirname(fileURLToPath(import.meta.url)), 'spam-filter.yaml');
