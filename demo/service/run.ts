/**
 * Runs the demo service on its own: `node --import tsx demo/service/run.ts [--port 8088] [--replicas 3]`.
 * Prints a per-status count every 5 s instead of a line per request; Ctrl-C stops it cleanly.
 */
import { parseArgs } from 'node:util';
import { createService } from './service.ts';

const { values } = parseArgs({ options: { port: { type: 'string', default: '8088' }, replicas: { type: 'string', default: '3' } } });
const counts = new Map<string, number>();
const service = createService({
  port: Number(values.port),
  replicas: Number(values.replicas),
  observer: { onRequest: (e) => void counts.set(String(e.status), (counts.get(String(e.status)) ?? 0) + 1) },
});
await service.start();
console.log(`demo spam-filter service on ${service.url}: POST /v1/classify {"text", "tenant"}; POST /admin/<action>`);
const timer = setInterval(() => {
  if (counts.size > 0) console.log(JSON.stringify(Object.fromEntries(counts)));
  counts.clear();
}, 5_000);
process.once('SIGINT', () => {
  clearInterval(timer);
  void service.stop().then(() => console.log('stopped'));
});
