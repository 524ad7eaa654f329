// Serves real /metrics captures as a live engine would over time: the k-th request gets the
// capture with every cumulative value (counters, histogram buckets, _sum, _count) multiplied by k
// and gauges as captured, so each scrape interval sees exactly the capture's totals again (the
// rates and per-interval buckets the scraper derives are the capture's own numbers).
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';

export const PROMETHEUS_FIXTURES = join(import.meta.dirname, 'fixtures', 'prometheus');

/** The capture as its k-th scrape: cumulative samples × k, gauges and summary quantiles unchanged. */
export function replayAt(text: string, k: number): string {
  let type = '';
  return text
    .split('\n')
    .map((line) => {
      const t = /^# TYPE (\S+) (\S+)/.exec(line);
      if (t) type = t[2]!;
      if (line.startsWith('#') || line.trim() === '') return line;
      const cumulative = type === 'counter' || type === 'histogram' || (type === 'summary' && /_(sum|count)[{\s]/.test(line));
      if (!cumulative) return line;
      const m = /^(\S+?(?:\{.*\})?)\s+(\S+)(.*)$/.exec(line);
      if (!m || !Number.isFinite(Number(m[2]))) return line;
      return `${m[1]} ${Number(m[2]) * k}${m[3]}`;
    })
    .join('\n');
}

export interface ReplayServer {
  /** `http://127.0.0.1:PORT/<name>` for each capture. */
  urls: Record<string, string>;
  /** Requests served, per capture. */
  served: Record<string, number>;
  close(): Promise<void>;
}

/** Serves each capture (name → path under test/fixtures/prometheus) at `/<name>`. */
export async function startReplayServer(captures: Record<string, string>): Promise<ReplayServer> {
  const texts = Object.fromEntries(Object.entries(captures).map(([name, rel]) => [name, readFileSync(join(PROMETHEUS_FIXTURES, rel), 'utf8')]));
  const served: Record<string, number> = Object.fromEntries(Object.keys(captures).map((n) => [n, 0]));
  const server: Server = createServer((req, res) => {
    const name = (req.url ?? '').slice(1);
    const text = texts[name];
    if (text === undefined) return void res.writeHead(404).end();
    served[name]! += 1;
    res.writeHead(200, { 'content-type': 'text/plain; version=0.0.4; charset=utf-8' }).end(replayAt(text, served[name]!));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    urls: Object.fromEntries(Object.keys(captures).map((n) => [n, `http://127.0.0.1:${port}/${n}`])),
    served,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}
