/**
 * Test support (not exported): a real HTTP server on 127.0.0.1 with a per-test script, so the
 * exporter is tested against real sockets: accepts, 429 with Retry-After, 503, 413, slow replies,
 * connection resets, garbage.
 */
import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';

/** One request as the server saw it; `rows` parsed from NDJSON or a JSON array (gzip undone). */
export interface Received {
  path: string;
  headers: IncomingMessage['headers'];
  rows: unknown[];
}

/** How to answer: a status (and body, headers), after an optional delay; or cut the connection. */
export type Reply = { status: number; body?: unknown; headers?: Record<string, string>; delayMs?: number } | { reset: true } | { hang: true };

/** Decides the reply to the n-th request (0-based). */
export type Script = (req: Received, n: number) => Reply;

export interface ScriptedServer {
  url: string;
  requests: Received[];
  /** Rows of all requests answered 2xx, in order. */
  acceptedRows(): unknown[];
  close(): Promise<void>;
}

/** Accepts everything: `{ accepted: rows, rejected: [] }`. */
export const acceptAll: Script = (req) => ({ status: 200, body: { accepted: req.rows.length, rejected: [] } });

function parseRows(body: string): unknown[] {
  const text = body.trim();
  if (text === '') return [];
  if (text.startsWith('[')) return JSON.parse(text) as unknown[];
  return text.split('\n').map((line) => JSON.parse(line) as unknown);
}

export async function startScriptedServer(script: Script = acceptAll): Promise<ScriptedServer> {
  const requests: Received[] = [];
  const accepted: unknown[] = [];
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      const text = (req.headers['content-encoding'] === 'gzip' ? gunzipSync(raw) : raw).toString('utf8');
      const received: Received = { path: req.url ?? '', headers: req.headers, rows: parseRows(text) };
      const n = requests.length;
      requests.push(received);
      const reply = script(received, n);
      if ('reset' in reply) {
        req.socket.destroy();
        return;
      }
      if ('hang' in reply) return;
      const send = (): void => {
        if (res.destroyed) return;
        if (reply.status >= 200 && reply.status < 300) accepted.push(...received.rows);
        const body = typeof reply.body === 'string' ? reply.body : JSON.stringify(reply.body ?? {});
        res.writeHead(reply.status, { 'content-type': 'application/json', ...reply.headers });
        res.end(body);
      };
      if (reply.delayMs !== undefined) setTimeout(send, reply.delayMs);
      else send();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    acceptedRows: () => accepted,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Polls until `cond()` holds; throws after `timeoutMs`. */
export async function waitFor(cond: () => boolean, timeoutMs = 5000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > until) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 5));
  }
}
