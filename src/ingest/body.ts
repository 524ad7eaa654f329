/**
 * Reading request bodies with a hard byte limit, before and after gzip: a gzip bomb stops at the
 * limit instead of expanding in memory.
 */
import { gunzip } from 'node:zlib';
import { promisify } from 'node:util';
import { InferlensError } from '../schema/index.ts';

const gunzipAsync = promisify(gunzip);

/** Reads a web stream up to `limitBytes`; throws payload_too_large beyond it. */
export async function readLimited(stream: ReadableStream<Uint8Array> | null, limitBytes: number): Promise<Buffer> {
  if (!stream) return Buffer.alloc(0);
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = stream.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limitBytes) {
      // Read and discard the rest (up to a hard cap) so the client gets the 413 instead of a reset.
      const discardCapBytes = Math.max(4 * limitBytes, 64 * 1024 * 1024);
      while (size <= discardCapBytes) {
        const next = await reader.read();
        if (next.done) break;
        size += next.value.byteLength;
      }
      await reader.cancel().catch(() => undefined);
      throw new InferlensError('payload_too_large', `request body is larger than the ${limitBytes}-byte limit: split the batch`);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks, size);
}

/** Decodes `Content-Encoding` (identity or gzip), keeping the decoded size within `limitBytes`. */
export async function decodeBody(raw: Buffer, contentEncoding: string | null | undefined, limitBytes: number): Promise<Buffer> {
  const enc = (contentEncoding ?? 'identity').trim().toLowerCase();
  if (enc === '' || enc === 'identity') return raw;
  if (enc !== 'gzip' && enc !== 'x-gzip') {
    throw new InferlensError('invalid_argument', `unsupported Content-Encoding "${enc}": send identity or gzip`);
  }
  try {
    return await gunzipAsync(raw, { maxOutputLength: limitBytes });
  } catch (e) {
    if (e instanceof RangeError || (e as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE') {
      throw new InferlensError('payload_too_large', `decompressed body is larger than the ${limitBytes}-byte limit: split the batch`);
    }
    throw new InferlensError('invalid_argument', `body is not valid gzip: ${(e as Error).message}`);
  }
}

/** Reads and decodes a request body in one go. */
export async function readBody(stream: ReadableStream<Uint8Array> | null, contentEncoding: string | null | undefined, limitBytes: number): Promise<Buffer> {
  return decodeBody(await readLimited(stream, limitBytes), contentEncoding, limitBytes);
}
