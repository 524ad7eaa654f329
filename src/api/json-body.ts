/** Reads a JSON request body with a byte limit (before and after gzip); bad JSON → invalid_argument. */
import type { Context } from 'hono';
import { readBody } from '../ingest/index.ts';
import { InferlensError } from '../schema/index.ts';

export async function readJson(c: Context, maxBytes: number, options: { emptyAs?: unknown } = {}): Promise<unknown> {
  const text = (await readBody(c.req.raw.body, c.req.header('content-encoding'), maxBytes)).toString('utf8');
  if (text.trim() === '' && 'emptyAs' in options) return options.emptyAs;
  try {
    return JSON.parse(text) as unknown;
  } catch (e) {
    throw new InferlensError('invalid_argument', `body is not valid JSON: ${(e as Error).message}`);
  }
}
