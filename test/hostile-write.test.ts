// Over 400 lines on purpose: one suite: the hostile-input corpus against the write routes, case tables that read best together.
// The write routes against a hostile-input corpus (issue 12, item 6): malformed JSON/NDJSON, wrong
// types, numeric edges, huge strings and bodies, nesting, Unicode and control characters,
// timestamps, compression bombs, content types, duplicate and prototype keys, SQL-looking values,
// path traversal, OTLP garbage (JSON and protobuf) and YAML bombs for golden sets.
//
// Every case: no 5xx, and where a batch mixes valid and bad rows, the reply accepts exactly the
// valid ones. After the corpus: the server is up and ready, the store holds exactly the rows that
// were accepted, and a restart on the same data directory loads the golden sets that were
// registered and nothing else. The server's clock is injected (NOW), so nothing here depends on
// the day the test runs.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { gzipSync } from 'node:zlib';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config/index.ts';
import { startServer } from '../src/main.ts';
import type { InferlensServer } from '../src/main.ts';
import { otlpType } from '../src/ingest/otlp/decode.ts';

const NOW = Date.parse('2026-11-30T12:00:00Z');
const TS = '2026-11-30T11:59:00Z';
const FIXTURES = resolve(import.meta.dirname, 'fixtures/hostile-write');
const MAX_BODY = 4 * 1024 * 1024;

let dir: string;
let server: InferlensServer;

async function start(): Promise<InferlensServer> {
  const config = loadConfig({
    flags: { server: { port: 0, maxBodyBytes: MAX_BODY }, storage: { dataDir: dir }, alerting: { enabled: false }, log: { level: 'silent' } },
  });
  return startServer(config, { logger: pino({ level: 'silent' }), now: () => NOW, ui: false, collectors: false });
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'inferlens-hostile-write-'));
  server = await start();
});
afterAll(async () => {
  await server?.stop();
  rmSync(dir, { recursive: true, force: true });
});

interface Reply {
  status: number;
  text: string;
  json: Record<string, unknown> | undefined;
  retryAfter: string | null;
}

async function send(path: string, body: string | Uint8Array, headers: Record<string, string> = {}): Promise<Reply> {
  const res = await fetch(server.url + path, { method: 'POST', body: typeof body === 'string' ? body : new Uint8Array(body), headers });
  const text = await res.text();
  let json: Record<string, unknown> | undefined;
  try {
    json = JSON.parse(text) as Record<string, unknown>;
  } catch {
    json = undefined;
  }
  return { status: res.status, text, json, retryAfter: res.headers.get('retry-after') };
}

// ---------- the corpus ----------

interface Case {
  name: string;
  path: string;
  body: string | Uint8Array;
  headers?: Record<string, string>;
  /** Expected status (or any of these); by default anything below 500. */
  status?: number | number[];
  /** Rows of the body the reply must accept (mixed batches): the valid ones. */
  accepted?: number;
  /** A path the reply's rejected rows (or issues) must name. */
  rejectedPath?: string;
}

const cases: Case[] = [];
const NDJSON = { 'content-type': 'application/x-ndjson' };
const JSON_CT = { 'content-type': 'application/json' };
let seq = 0;
const id = (tag: string) => `${tag}-${seq++}`;
const ev = (o: Record<string, unknown> = {}) => ({ ts: TS, request_id: id('ok'), model: 'hostile-ok', total_ms: 12.5, status: 'ok', ...o });

/**
 * A mixed NDJSON batch for `path`: a valid row (`validRow()`), the hostile line, another valid
 * row. `valid` says whether the hostile row itself must be stored (SQL-looking text is data, not a
 * reason to refuse it); `rejectedPath` is the field path its reject must name.
 */
function mixed(kind: string, path: string, validRow: () => unknown) {
  return (name: string, hostileLine: string, valid: boolean, rejectedPath?: string) => {
    const body = [JSON.stringify(validRow()), hostileLine, JSON.stringify(validRow())].join('\n');
    cases.push({
      name: `${kind} mixed: ${name}`,
      path,
      body,
      headers: NDJSON,
      status: 200,
      accepted: valid ? 3 : 2,
      ...(rejectedPath !== undefined ? { rejectedPath } : {}),
    });
  };
}
const mixedEvents = mixed('events', '/v1/events', () => ev());
const bad = (name: string, fields: Record<string, unknown>, path: string) => mixedEvents(name, JSON.stringify(ev(fields)), false, path);
const good = (name: string, fields: Record<string, unknown>) => mixedEvents(name, JSON.stringify(ev(fields)), true);
/** A hostile line given as raw JSON text (escapes JSON.stringify would not write). */
const rawBad = (name: string, line: string, path: string) => mixedEvents(name, line, false, path);
const rawGood = (name: string, line: string) => mixedEvents(name, line, true);

// Types.
for (const [field, value, path] of [
  ['model', 123, 'model'],
  ['model', null, 'model'],
  ['model', [], 'model'],
  ['model', {}, 'model'],
  ['model', true, 'model'],
  ['model', '', 'model'],
  ['status', 'OK', 'status'],
  ['status', 5, 'status'],
  ['status', '', 'status'],
  ['error_type', 'oom', 'error_type'],
  ['total_ms', '12', 'total_ms'],
  ['total_ms', -1, 'total_ms'],
  ['total_ms', 86_400_001, 'total_ms'],
  ['queue_ms', true, 'queue_ms'],
  ['http_status', 99, 'http_status'],
  ['http_status', 600, 'http_status'],
  ['http_status', 200.5, 'http_status'],
  ['confidence', 1.0000001, 'confidence'],
  ['confidence', -0.5, 'confidence'],
  ['empty', 'true', 'empty'],
  ['probe', 1, 'probe'],
  ['attributes', ['a'], 'attributes'],
  ['attributes', 'k=v', 'attributes'],
  ['attributes', { k: 1 }, 'attributes'],
  ['attributes', { k: { nested: 'v' } }, 'attributes'],
  ['features', { f: 'x' }, 'features'],
  ['features', [1, 2], 'features'],
  ['risk_tags', 'pii', 'risk_tags'],
  ['risk_tags', [''], 'risk_tags'],
  ['risk_tags', [1], 'risk_tags'],
  ['stages', 'fast', 'stages'],
  ['stages', { queue_ms: -3 }, 'stages.queue_ms'],
  ['request_id', 5, 'request_id'],
  ['request_id', '', 'request_id'],
  ['trace_id', {}, 'trace_id'],
] as const) {
  bad(`${field} = ${JSON.stringify(value)}`, { [field]: value }, path);
}
// A row with stages given twice.
bad('queue_ms flat and nested', { queue_ms: 1, stages: { queue_ms: 2 } }, 'stages.queue_ms');

// Numeric edges: what the 32-bit count columns and the sample weight bound hold.
for (const [field, value, ok] of [
  ['batch_size', 2_147_483_647, true],
  ['batch_size', 2_147_483_648, false],
  ['batch_size', 3_000_000_000, false],
  ['batch_tokens', 1e21, false],
  ['input_tokens', -1, false],
  ['output_tokens', 1.5, false],
  ['output_length', 0, true],
  ['output_length', -0, true],
  ['sample_weight', 1e6, true],
  ['sample_weight', 1e6 + 1, false],
  ['sample_weight', 1e308, false],
  ['sample_weight', 0, false],
  ['sample_weight', -1, false],
  ['sample_weight', 1e-300, true],
  ['score', 1.7976931348623157e308, true],
  ['score', -1.7976931348623157e308, true],
  ['score', 5e-324, true],
  ['features', { f: 1e308 }, true],
  ['total_ms', 86_400_000, true],
  ['total_ms', 0, true],
] as const) {
  if (ok) good(`${field} = ${value}`, { [field]: value });
  else bad(`${field} = ${value}`, { [field]: value }, field);
}
// Literals JSON.stringify cannot write: Infinity, NaN, hex, leading zeros, huge exponents.
rawBad('total_ms = 1e400 (Infinity)', `{"ts":"${TS}","model":"hostile-ok","total_ms":1e400}`, 'total_ms');
rawBad('total_ms = NaN literal', `{"ts":"${TS}","model":"hostile-ok","total_ms":NaN}`, '');
rawBad('total_ms = Infinity literal', `{"ts":"${TS}","model":"hostile-ok","total_ms":Infinity}`, '');
rawBad('total_ms = 0x10', `{"ts":"${TS}","model":"hostile-ok","total_ms":0x10}`, '');
rawBad('total_ms = 012', `{"ts":"${TS}","model":"hostile-ok","total_ms":012}`, '');
rawGood('score = 1e-400 (underflows to 0)', `{"ts":"${TS}","request_id":"${id('ok')}","model":"hostile-ok","score":1e-400,"status":"ok"}`);
rawGood('batch_size = 3.0', `{"ts":"${TS}","request_id":"${id('ok')}","model":"hostile-ok","batch_size":3.0,"status":"ok"}`);
rawGood('output_length = 1E2', `{"ts":"${TS}","request_id":"${id('ok')}","model":"hostile-ok","output_length":1E2,"status":"ok"}`);
rawBad(
  'score = 123456789012345678901234567890 (a finite double, then fine)',
  `{"ts":"${TS}","model":"hostile-ok","score":123456789012345678901234567890,"status":"ok","batch_size":-1}`,
  'batch_size',
);

// Timestamps.
for (const [ts, path] of [
  ['2026-11-31T11:59:00Z', 'ts'],
  ['2026-02-29T11:59:00Z', 'ts'],
  ['2026-11-30T24:00:00Z', 'ts'],
  ['2026-11-30T11:60:00Z', 'ts'],
  ['2026-06-30T23:59:60Z', 'ts'],
  ['2026-11-30T11:59:00+25:00', 'ts'],
  ['2026-13-01T00:00:00Z', 'ts'],
  ['2026-11-30', 'ts'],
  ['yesterday', 'ts'],
  ['', 'ts'],
  ['not', 'ts'],
  ['+275760-09-13T00:00:00Z', 'ts'],
  ['2026-11-30T11:59:00.1234567890123Z', 'ts'],
  ['1796000000000', 'ts'],
  [-1, 'ts'],
  [0, 'ts'],
  [1e300, 'ts'],
  [null, 'ts'],
  [{}, 'ts'],
  ['2026-12-01T00:00:00Z', 'ts'], // 12 hours ahead of the server's clock
  ['2026-11-01T00:00:00Z', 'ts'], // past the 7-day retention window
] as const) {
  bad(`ts = ${JSON.stringify(ts)}`, { ts }, path);
}
for (const ts of ['2026-11-30T11:59:00.123456Z', '2026-11-30 11:59:00Z', '2026-11-30T13:59:00+02:00', '2026-11-30t11:59:00z', NOW - 60_000, NOW - 60_000.5]) {
  good(`ts = ${JSON.stringify(ts)}`, { ts });
}

// Strings: lone surrogates in every kind of text field, with the path; long strings.
for (const [name, line, path] of [
  ['model', `{"ts":"${TS}","model":"m\\ud800","status":"ok"}`, 'model'],
  ['request_id', `{"ts":"${TS}","model":"hostile-ok","request_id":"r\\udfff","status":"ok"}`, 'request_id'],
  ['trace_id', `{"ts":"${TS}","model":"hostile-ok","trace_id":"\\udbff","status":"ok"}`, 'trace_id'],
  ['tenant (high, end)', `{"ts":"${TS}","model":"hostile-ok","tenant":"acme\\ud83d","status":"ok"}`, 'tenant'],
  ['tenant (low first)', `{"ts":"${TS}","model":"hostile-ok","tenant":"\\ude00\\ud83d","status":"ok"}`, 'tenant'],
  ['label', `{"ts":"${TS}","model":"hostile-ok","label":"\\ud800spam","status":"ok"}`, 'label'],
  ['finish_reason', `{"ts":"${TS}","model":"hostile-ok","finish_reason":"stop\\udc00","status":"ok"}`, 'finish_reason'],
  ['attribute value', `{"ts":"${TS}","model":"hostile-ok","attributes":{"k":"v\\ud800"},"status":"ok"}`, 'attributes.k'],
  ['attribute key', `{"ts":"${TS}","model":"hostile-ok","attributes":{"k\\ud800":"v"},"status":"ok"}`, 'attributes.k\ud800'],
  ['feature key', `{"ts":"${TS}","model":"hostile-ok","features":{"\\udc00":1},"status":"ok"}`, 'features.\udc00'],
  ['risk tag', `{"ts":"${TS}","model":"hostile-ok","risk_tags":["ok","\\ud800"],"status":"ok"}`, 'risk_tags.1'],
  ['captured input', `{"ts":"${TS}","model":"hostile-ok","input":"hello \\ud800","status":"ok"}`, 'input'],
  ['captured output', `{"ts":"${TS}","model":"hostile-ok","output":"\\udc00","status":"ok"}`, 'output'],
  ['every dimension', `{"ts":"${TS}","model":"hostile-ok","node":"\\ud800","replica":"\\ud800","pool":"\\ud800","entry":"\\ud800","status":"ok"}`, 'node'],
] as const) {
  rawBad(`lone surrogate in ${name}`, line, path);
}
// Unknown fields are ignored and not stored, whatever they hold.
rawGood('lone surrogate in an unknown field', `{"ts":"${TS}","request_id":"${id('ok')}","model":"hostile-ok","zzz":"\\ud800","\\ud800":1,"status":"ok"}`);
rawGood(
  '10,000-deep array in an unknown field',
  `{"ts":"${TS}","request_id":"${id('ok')}","model":"hostile-ok","deep":${'['.repeat(10_000)}${']'.repeat(10_000)},"status":"ok"}`,
);
good('a pair of surrogates (an emoji) is fine', { tenant: 'smile \ud83d\ude00', label: '👍' });
good('control characters are data', { tenant: 'a\u0000b\u0001c\u001fd\u007fe', label: 'tab\there' });
good('bidi override and line separators', { tenant: '\u202eevil\u202c', label: 'line\u2028sep\u2029' });
good('combining and wide characters', { tenant: 'é'.normalize('NFD') + '漢字' + '𝕏' });
good('256-character dimension', { tenant: 'x'.repeat(256) });
bad('257-character dimension', { tenant: 'x'.repeat(257) }, 'tenant');
bad('129-character request_id', { request_id: 'r'.repeat(129) }, 'request_id');
bad('65-character attribute key', { attributes: { ['k'.repeat(65)]: 'v' } }, 'attributes');
bad('17 attributes', { attributes: Object.fromEntries(Array.from({ length: 17 }, (_, i) => [`k${i}`, 'v'])) }, 'attributes');
bad('33 features', { features: Object.fromEntries(Array.from({ length: 33 }, (_, i) => [`f${i}`, i])) }, 'features');
bad('captured input of 70,000 characters', { input: 'x'.repeat(70_000) }, 'input');
mixedEvents('a row of 1.1 Mi characters is rejected unparsed', JSON.stringify(ev({ zzz: 'y'.repeat(1_150_000) })), false, '');

// SQL-looking names and values, path traversal: stored as data.
for (const [name, fields] of [
  ['tenant DROP TABLE', { tenant: "'; DROP TABLE events; --" }],
  ['route_rule OR 1=1', { route_rule: "1' OR '1'='1" }],
  ['request_id with quotes', { request_id: `${id('sql')}"); DELETE FROM events; --` }],
  ['attribute SELECT', { attributes: { q: "'; SELECT * FROM feedback; --", "k'); --": 'v' } }],
  ['label UNION', { label: "x' UNION SELECT version() --" }],
  ['model_version with $1 placeholder', { model_version: '$1 $2 ? :name' }],
  ['node path traversal', { node: '../../../../etc/passwd' }],
  ['replica windows traversal', { replica: '..\\..\\windows\\system32\\config' }],
  ['pool with NUL and slash', { pool: '/tmp/\u0000/x' }],
  ['entry URL-encoded traversal', { entry: '%2e%2e%2f%2e%2e%2fetc%2fpasswd' }],
  ['service_version with newline', { service_version: 'v1\nv2' }],
  ['tenant __proto__', { tenant: '__proto__' }],
] as const) {
  good(name, fields);
}

// Duplicate and prototype keys.
rawGood('duplicate status (bogus, then ok)', `{"ts":"${TS}","request_id":"${id('dup')}","model":"hostile-ok","status":"bogus","status":"ok"}`);
rawGood(
  'duplicate batch_size (3e9, then 8)',
  `{"ts":"${TS}","request_id":"${id('dup')}","model":"hostile-ok","batch_size":3000000000,"batch_size":8,"status":"ok"}`,
);
rawGood('duplicate attribute key', `{"ts":"${TS}","request_id":"${id('dup')}","model":"hostile-ok","attributes":{"a":"1","a":"2"},"status":"ok"}`);
rawBad('duplicate model (ok, then a lone surrogate)', `{"ts":"${TS}","model":"hostile-ok","model":"\\ud800","status":"ok"}`, 'model');
rawBad('duplicate ts (valid, then not in the calendar)', `{"ts":"${TS}","ts":"2026-11-31T00:00:00Z","model":"hostile-ok","status":"ok"}`, 'ts');
rawGood('__proto__ key', `{"ts":"${TS}","request_id":"${id('proto')}","model":"hostile-ok","__proto__":{"model":"polluted","status":"bogus"},"status":"ok"}`);
rawGood(
  'constructor.prototype key',
  `{"ts":"${TS}","request_id":"${id('proto')}","model":"hostile-ok","constructor":{"prototype":{"polluted":true}},"status":"ok"}`,
);
rawGood(
  '__proto__ attribute key',
  `{"ts":"${TS}","request_id":"${id('proto')}","model":"hostile-ok","attributes":{"__proto__":"x","toString":"y"},"status":"ok"}`,
);
rawGood(
  '__proto__ in stages',
  `{"ts":"${TS}","request_id":"${id('proto')}","model":"hostile-ok","stages":{"__proto__":{"queue_ms":1},"exec_ms":2},"total_ms":3}`,
);
rawBad('row is an array', '[1,2,3]', '');
rawBad('row is a string', '"event"', '');
rawBad('row is null', 'null', '');
rawBad('row is a number', '42', '');
rawBad('truncated row', `{"ts":"${TS}","model":"hosti`, '');
rawBad('trailing comma in row', `{"ts":"${TS}","model":"hostile-ok",}`, '');
rawBad('single quotes', `{'ts':'${TS}','model':'hostile-ok'}`, '');
rawBad('comment in row', `{"ts":"${TS}", /* x */ "model":"hostile-ok","status":"ok"}`, '');
rawBad('raw tab and control char inside a string', `{"ts":"${TS}","model":"a\u0001b","status":"ok"}`, '');

// Whole bodies on /v1/events.
const events = (n: number, tag: string) => Array.from({ length: n }, () => JSON.stringify(ev({ request_id: id(tag) })));
for (const [name, body, headers, status, accepted] of [
  ['empty body', '', NDJSON, 400],
  ['whitespace only', ' \n\t\r\n ', NDJSON, 400],
  ['JSON null', 'null', JSON_CT, 400],
  ['empty array', '[]', JSON_CT, 400],
  ['array of numbers', '[1,2,3]', JSON_CT, 400],
  ['array of arrays', '[[],[[]]]', JSON_CT, 400],
  ['JSON string', '"hello"', JSON_CT, 400],
  ['array with a trailing comma', `[${JSON.stringify(ev())},]`, JSON_CT, 400],
  ['unterminated string in an array', '[{"ts":"2026', JSON_CT, 400],
  ['unclosed array', `[${JSON.stringify(ev())}`, JSON_CT, 400],
  ['text after the array', `[${JSON.stringify(ev())}] trailing`, JSON_CT, 400],
  ['two arrays', '[][]', JSON_CT, 400],
  ['stray closing brace', '[}]', JSON_CT, 400],
  ['brackets inside strings', `[${JSON.stringify(ev({ label: '],[{"x":"\\"}' }))}]`, JSON_CT, 200, 1],
  ['escaped quotes before a bracket', `[${JSON.stringify(ev({ label: 'a\\"]' }))},${JSON.stringify(ev())}]`, JSON_CT, 200, 2],
  ['100,000-deep array body', '['.repeat(100_000) + ']'.repeat(100_000), JSON_CT, 400],
  ['100,000 unclosed brackets', '['.repeat(100_000), JSON_CT, 400],
  ['deep object body', '{"a":'.repeat(50_000) + '1' + '}'.repeat(50_000), JSON_CT, 400],
  ['1,000,000 blank lines', '\n'.repeat(1_000_000), NDJSON, 400],
  ['2 MB of "0\\n"', '0\n'.repeat(1_000_000), NDJSON, 400],
  ['2 MB of "0"', '0'.repeat(2_000_000), NDJSON, 400],
  ['2 MB of "["', '['.repeat(2_000_000), JSON_CT, 400],
  ['2 MB of "{"', '{'.repeat(2_000_000), NDJSON, 400],
  ['a 2 MB string', JSON.stringify('x'.repeat(2_000_000)), JSON_CT, 400],
  ['CRLF line ends', events(3, 'crlf').join('\r\n') + '\r\n', NDJSON, 200, 3],
  ['a byte-order mark first', '\ufeff' + events(2, 'bom').join('\n'), NDJSON, 200, 2],
  ['only a byte-order mark', '\ufeff', NDJSON, 400],
  ['NUL bytes', '\u0000'.repeat(1000), NDJSON, 400],
  // A content type the route does not take: 415, before the body is read.
  ['application/xml', '<event><model>x</model></event>', { 'content-type': 'application/xml' }, 415],
  ['multipart/form-data', '--b\r\nContent-Disposition: form-data; name="a"\r\n\r\nx\r\n--b--', { 'content-type': 'multipart/form-data; boundary=b' }, 415],
  ['charset=utf-16 (read as UTF-8)', events(1, 'u16').join('\n'), { 'content-type': 'application/x-ndjson; charset=utf-16' }, 200, 1],
  ['JSON content type with NDJSON body', events(2, 'ctmix').join('\n'), JSON_CT, 400],
] as const) {
  const c: Case = { name: `events body: ${name}`, path: '/v1/events', body, headers: headers as Record<string, string>, status };
  if (accepted !== undefined) c.accepted = accepted;
  cases.push(c);
}
// Content types a browser form can send, or none: read as NDJSON / sniffed today; the CSRF rules of
// issue 12 may refuse them (a 4xx). Either way no 5xx; their rows go to their own model.
for (const [name, body, headers] of [
  ['no content type, NDJSON sniffed', events(2, 'sniff').join('\n').replaceAll('hostile-ok', 'hostile-ct'), {}],
  ['no content type, JSON array sniffed', `[${events(2, 'sniff').join(',')}]`.replaceAll('hostile-ok', 'hostile-ct'), {}],
  ['text/plain', events(1, 'plain').join('\n').replaceAll('hostile-ok', 'hostile-ct'), { 'content-type': 'text/plain' }],
] as const) {
  cases.push({ name: `events body: ${name}`, path: '/v1/events', body, headers, status: [200, 400, 403, 415] });
}
// Raw bytes: invalid UTF-8 is read as U+FFFD, never stored as invalid text.
cases.push({
  name: 'events body: invalid UTF-8 bytes in a value',
  path: '/v1/events',
  body: Buffer.concat([
    Buffer.from(`{"ts":"${TS}","request_id":"${id('utf8')}","model":"hostile-ok","tenant":"a`),
    Buffer.from([0xff, 0xfe, 0xc0, 0x80, 0xed, 0xa0, 0x80]),
    Buffer.from('","status":"ok"}'),
  ]),
  headers: NDJSON,
  status: 200,
  accepted: 1,
});
cases.push({
  name: 'events body: random bytes',
  path: '/v1/events',
  body: Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 7919 + 13) % 256)),
  headers: NDJSON,
  status: 400,
});
// Bodies past the limit and compression.
cases.push({ name: 'events body: past the body limit', path: '/v1/events', body: 'x'.repeat(MAX_BODY + 1), headers: NDJSON, status: 413 });
cases.push({
  name: 'events body: gzip bomb (64 MiB of zeros)',
  path: '/v1/events',
  body: gzipSync(Buffer.alloc(64 * 1024 * 1024)),
  headers: { ...NDJSON, 'content-encoding': 'gzip' },
  status: 413,
});
cases.push({
  name: 'events body: gzip of a valid batch',
  path: '/v1/events',
  body: gzipSync(events(3, 'gz').join('\n')),
  headers: { ...NDJSON, 'content-encoding': 'gzip' },
  status: 200,
  accepted: 3,
});
cases.push({
  name: 'events body: truncated gzip',
  path: '/v1/events',
  body: gzipSync(events(50, 'gzt').join('\n')).subarray(0, 40),
  headers: { ...NDJSON, 'content-encoding': 'gzip' },
  status: 400,
});
cases.push({
  name: 'events body: gzip header, garbage after',
  path: '/v1/events',
  body: Buffer.concat([Buffer.from([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3]), Buffer.alloc(100, 0xaa)]),
  headers: { ...NDJSON, 'content-encoding': 'gzip' },
  status: 400,
});
cases.push({
  name: 'events body: says gzip, is plain',
  path: '/v1/events',
  body: events(1, 'nogz').join('\n'),
  headers: { ...NDJSON, 'content-encoding': 'gzip' },
  status: 400,
});
cases.push({
  name: 'events body: content-encoding br',
  path: '/v1/events',
  body: events(1, 'br').join('\n'),
  headers: { ...NDJSON, 'content-encoding': 'br' },
  status: 400,
});
cases.push({
  name: 'events body: content-encoding deflate',
  path: '/v1/events',
  body: events(1, 'defl').join('\n'),
  headers: { ...NDJSON, 'content-encoding': 'deflate' },
  status: 400,
});
cases.push({
  name: 'events body: gzip inside gzip',
  path: '/v1/events',
  body: gzipSync(gzipSync(events(1, 'gg').join('\n'))),
  headers: { ...NDJSON, 'content-encoding': 'gzip' },
  status: 400,
});
// The mixed fixture file.
cases.push({
  name: 'events body: fixtures/events-mixed.ndjson',
  path: '/v1/events',
  body: readFileSync(join(FIXTURES, 'events-mixed.ndjson')),
  headers: NDJSON,
  status: 200,
  accepted: 8,
});

// ---------- feedback ----------

const fb = (o: Record<string, unknown> = {}) => ({ ts: TS, request_id: id('fb'), kind: 'thumbs', value: true, ...o });
const mixedFeedback = mixed('feedback', '/v1/feedback', () => fb());
for (const [name, fields, path] of [
  ['ts "not"', { ts: 'not' }, 'ts'],
  ['ts not in the calendar', { ts: '2026-11-31T10:00:00Z' }, 'ts'],
  ['ts 1e300', { ts: 1e300 }, 'ts'],
  ['ts negative', { ts: -5 }, 'ts'],
  ['ts in the far future', { ts: '2099-01-01T00:00:00Z' }, 'ts'],
  ['ts past retention', { ts: '2020-01-01T00:00:00Z' }, 'ts'],
  ['ts missing', { ts: undefined }, 'ts'],
  ['kind unknown', { kind: 'like' }, 'kind'],
  ['value an object', { value: { a: 1 } }, 'value'],
  ['value a list', { value: [1] }, 'value'],
  ['value a 300-character string', { value: 'x'.repeat(300) }, 'value'],
  ['request_id empty', { request_id: '' }, 'request_id'],
  ['request_id 129 characters', { request_id: 'r'.repeat(129) }, 'request_id'],
] as const) {
  mixedFeedback(name, JSON.stringify(fb(fields)), false, path);
}
for (const [name, line, path] of [
  ['lone surrogate in request_id', `{"ts":"${TS}","request_id":"r\\ud800","kind":"label","value":"spam"}`, 'request_id'],
  ['lone surrogate in value', `{"ts":"${TS}","request_id":"r1","kind":"label","value":"sp\\udc00am"}`, 'value'],
  ['lone surrogate in source', `{"ts":"${TS}","request_id":"r1","kind":"thumbs","value":true,"source":"\\ud800"}`, 'source'],
  ['value NaN literal', `{"ts":"${TS}","request_id":"r1","kind":"rating","value":NaN}`, ''],
  ['value 1e400 (Infinity)', `{"ts":"${TS}","request_id":"r1","kind":"rating","value":1e400}`, 'value'],
  ['a number, not an object', '0', ''],
  ['an array, not an object', '[{"ts":1}]', ''],
] as const) {
  mixedFeedback(name, line, false, path);
}
for (const [name, fields] of [
  ['SQL-looking value', { kind: 'label', value: "'; DROP TABLE feedback; --" }],
  ['path traversal request_id', { request_id: `../../${id('fbp')}` }],
  ['rating 0', { kind: 'rating', value: 0 }],
  ['epoch ms ts', { ts: NOW - 1000 }],
  ['emoji label', { kind: 'label', value: '👍 spam' }],
] as const) {
  mixedFeedback(name, JSON.stringify(fb(fields)), true);
}
mixedFeedback('__proto__ key', `{"ts":"${TS}","request_id":"${id('fbproto')}","kind":"thumbs","value":true,"__proto__":{"kind":"evil"}}`, true);
mixedFeedback('duplicate kind', `{"ts":"${TS}","request_id":"${id('fbdup')}","kind":"evil","kind":"thumbs","value":true}`, true);
for (const [name, body, headers, status] of [
  ['empty body', '', NDJSON, 400],
  ['2 MB of "0\\n"', '0\n'.repeat(1_000_000), NDJSON, 400],
  ['2 MB of "0"', '0'.repeat(2_000_000), NDJSON, 400],
  ['deep array body', '['.repeat(50_000) + ']'.repeat(50_000), JSON_CT, 400],
  ['JSON array of feedback', `[${JSON.stringify(fb())},${JSON.stringify(fb())}]`, JSON_CT, 200],
  ['not JSON', 'thumbs up!', NDJSON, 400],
] as const) {
  const c: Case = { name: `feedback body: ${name}`, path: '/v1/feedback', body, headers: headers as Record<string, string>, status };
  if (status === 200) c.accepted = 2;
  cases.push(c);
}

// ---------- resource samples ----------

const res = (o: Record<string, unknown> = {}) => ({ ts: NOW - 30_000, node: 'n1', gpu: '0', metric: 'gpu_utilization_ratio', value: 0.5, ...o });
const mixedResources = mixed('resources', '/v1/resources', () => res());
for (const [name, fields, path] of [
  ['metric with a space', { metric: 'gpu util' }, 'metric'],
  ['metric starting with a digit', { metric: '1gpu' }, 'metric'],
  ['metric SQL', { metric: 'x; DROP TABLE resources' }, 'metric'],
  ['metric 129 characters', { metric: 'm'.repeat(129) }, 'metric'],
  ['value a string', { value: '0.5' }, 'value'],
  ['value null', { value: null }, 'value'],
  ['node empty', { node: '' }, 'node'],
  ['node missing', { node: undefined }, 'node'],
  ['65 labels', { labels: Object.fromEntries(Array.from({ length: 65 }, (_, i) => [`l${i}`, 'v'])) }, 'labels'],
  ['label value an object', { labels: { a: { b: 1 } } }, 'labels.a'],
  ['ts not in the calendar', { ts: '2026-02-30T00:00:00Z' }, 'ts'],
  ['ts 1e300', { ts: 1e300 }, 'ts'],
  ['ts in the future', { ts: NOW + 3_600_000 }, 'ts'],
  ['simulated "yes"', { simulated: 'yes' }, 'simulated'],
] as const) {
  mixedResources(name, JSON.stringify(res(fields)), false, path);
}
for (const [name, line, path] of [
  ['lone surrogate in node', `{"ts":${NOW - 1000},"node":"n\\ud800","metric":"m","value":1}`, 'node'],
  ['lone surrogate in a label value', `{"ts":${NOW - 1000},"node":"n","metric":"m","value":1,"labels":{"k":"\\udc00"}}`, 'labels.k'],
  ['lone surrogate in a label key', `{"ts":${NOW - 1000},"node":"n","metric":"m","value":1,"labels":{"\\udc00":"v"}}`, 'labels.\udc00'],
  ['value 1e400 (Infinity)', `{"ts":${NOW - 1000},"node":"n","metric":"m","value":1e400}`, 'value'],
  ['a string, not an object', '"cpu"', ''],
] as const) {
  mixedResources(name, line, false, path);
}
for (const [name, fields] of [
  ['label with SQL and traversal', { labels: { q: "' OR 1=1 --", path: '../../etc/shadow' } }],
  ['value -1e308', { value: -1e308 }],
  ['__proto__ label', { labels: { __proto__: 'x' } }],
  ['RFC 3339 ts with offset', { ts: '2026-11-30T13:59:00+02:00' }],
] as const) {
  mixedResources(name, JSON.stringify(res(fields)), true);
}
for (const [name, body, status] of [
  ['empty body', '', 400],
  ['2 MB of "0\\n"', '0\n'.repeat(1_000_000), 400],
  ['2 MB of zeros', '0'.repeat(2_000_000), 400],
  ['a JSON object of 100,000 keys', JSON.stringify(Object.fromEntries(Array.from({ length: 100_000 }, (_, i) => [`k${i}`, i]))), 400],
] as const) {
  cases.push({ name: `resources body: ${name}`, path: '/v1/resources', body, headers: NDJSON, status });
}

// ---------- OTLP ----------

const kv = (key: string, value: Record<string, unknown>) => ({ key, value });
const span = (i: number, attrs: unknown[] = [kv('gen_ai.request.model', { stringValue: 'otlp-m' })], extra: Record<string, unknown> = {}) => ({
  traceId: '0af7651916cd43dd8448eb211c80319c',
  spanId: (0xa000 + i).toString(16).padStart(16, '0'),
  name: 'chat',
  kind: 2,
  startTimeUnixNano: String(BigInt(NOW - 5000) * 1_000_000n),
  endTimeUnixNano: String(BigInt(NOW - 4750) * 1_000_000n),
  attributes: attrs,
  ...extra,
});
const traces = (spans: unknown[]) =>
  JSON.stringify({ resourceSpans: [{ resource: { attributes: [kv('service.name', { stringValue: 'svc' })] }, scopeSpans: [{ spans }] }] });
let spanSeq = 0;
const s = () => spanSeq++;
for (const [name, body, status] of [
  ['empty body', '', 400],
  ['not JSON', '{', 400],
  ['JSON null', 'null', 400],
  ['JSON array', '[]', 400],
  ['resourceSpans a number', '{"resourceSpans":5}', 400],
  ['spans that are not objects', '{"resourceSpans":[{"scopeSpans":[{"spans":[5,null,"x",[]]}]}]}', 200],
  ['empty request', '{}', 200],
  ['unknown top-level keys', '{"resourceSpans":[],"__proto__":{"x":1},"extra":true}', 200],
  ['a valid inference span', traces([span(s())]), 200],
  ['ids that are not hex', traces([span(s(), undefined, { traceId: 'zz-not-hex!', spanId: '***' })]), 200],
  ['times that are not numbers', traces([span(s(), undefined, { startTimeUnixNano: 'abc', endTimeUnixNano: '-1' })]), 200],
  ['times past uint64', traces([span(s(), undefined, { startTimeUnixNano: '99999999999999999999999', endTimeUnixNano: '99999999999999999999999' })]), 200],
  ['end before start', traces([span(s(), undefined, { startTimeUnixNano: String(BigInt(NOW) * 1_000_000n), endTimeUnixNano: '1' })]), 200],
  ['a lone surrogate in the model', traces([span(s(), [kv('gen_ai.request.model', { stringValue: 'm\ud800' })])]).replace('m\\ud800', 'm\\ud800'), 200],
  [
    'a lone surrogate in an attribute',
    traces([span(s(), [kv('gen_ai.request.model', { stringValue: 'otlp-m' }), kv('inferlens.tenant', { stringValue: '\udc00' })])]),
    200,
  ],
  [
    'a 300-character emoji attribute (cut without splitting a pair)',
    traces([span(s(), [kv('gen_ai.request.model', { stringValue: 'otlp-m' }), kv('app.note', { stringValue: '😀'.repeat(150) })])]),
    200,
  ],
  [
    'tokens past 2^31',
    traces([span(s(), [kv('gen_ai.request.model', { stringValue: 'otlp-m' }), kv('gen_ai.usage.output_tokens', { intValue: '3000000000' })])]),
    200,
  ],
  ['tokens negative', traces([span(s(), [kv('gen_ai.request.model', { stringValue: 'otlp-m' }), kv('gen_ai.usage.input_tokens', { intValue: '-5' })])]), 200],
  [
    'kvlist nested 1,000 deep',
    traces([
      span(s(), [
        kv('gen_ai.request.model', { stringValue: 'otlp-m' }),
        { key: 'deep', value: JSON.parse('{"kvlistValue":{"values":[{"key":"a","value":'.repeat(1000) + '{"stringValue":"x"}' + '}]}}'.repeat(1000)) },
      ]),
    ]),
    200,
  ],
  [
    '10,000 attributes on a span',
    traces([span(s(), [kv('gen_ai.request.model', { stringValue: 'otlp-m' }), ...Array.from({ length: 10_000 }, (_, i) => kv(`a${i}`, { intValue: i }))])]),
    200,
  ],
  ['10,000 spans', traces(Array.from({ length: 10_000 }, () => span(s()))), 200],
  ['SQL in the model name', traces([span(s(), [kv('gen_ai.request.model', { stringValue: "x'); DROP TABLE events; --" })])]), 200],
] as const) {
  cases.push({ name: `otlp traces json: ${name}`, path: '/v1/traces', body, headers: JSON_CT, status });
}
const metricsBody = (metrics: unknown[]) =>
  JSON.stringify({ resourceMetrics: [{ resource: { attributes: [kv('host.name', { stringValue: 'n1' })] }, scopeMetrics: [{ metrics }] }] });
const gauge = (name: string, points: unknown[]) => ({ name, gauge: { dataPoints: points } });
for (const [name, body, status] of [
  ['not JSON', 'garbage', 400],
  ['resourceMetrics an object', '{"resourceMetrics":{}}', 400],
  ['data points that are not objects', metricsBody([gauge('g', [1, null, 'x'])]), 200],
  [
    'NaN and Infinity values',
    metricsBody([
      gauge('g', [
        { timeUnixNano: String(BigInt(NOW - 1000) * 1_000_000n), asDouble: 'NaN' },
        { timeUnixNano: String(BigInt(NOW - 1000) * 1_000_000n), asDouble: 'Infinity' },
      ]),
    ]),
    200,
  ],
  [
    'a histogram with inconsistent buckets',
    metricsBody([
      {
        name: 'h',
        histogram: {
          aggregationTemporality: 2,
          dataPoints: [{ timeUnixNano: String(BigInt(NOW - 1000) * 1_000_000n), count: '3', bucketCounts: ['1', '1', '1', '1', '1'], explicitBounds: [1] }],
        },
      },
    ]),
    200,
  ],
  [
    'a lone surrogate in a label',
    metricsBody([gauge('g', [{ timeUnixNano: String(BigInt(NOW - 1000) * 1_000_000n), asDouble: 1, attributes: [kv('gpu', { stringValue: '\ud800' })] }])]),
    200,
  ],
  ['a timestamp from 1970', metricsBody([gauge('g', [{ timeUnixNano: '1', asDouble: 1 }])]), 200],
  ['a timestamp past uint64', metricsBody([gauge('g', [{ timeUnixNano: '999999999999999999999', asDouble: 1 }])]), 200],
  [
    'a metric name of 10,000 characters',
    metricsBody([gauge('m'.repeat(10_000), [{ timeUnixNano: String(BigInt(NOW - 1000) * 1_000_000n), asDouble: 1 }])]),
    200,
  ],
] as const) {
  cases.push({ name: `otlp metrics json: ${name}`, path: '/v1/metrics', body, headers: JSON_CT, status });
}
const PB = { 'content-type': 'application/x-protobuf' };
const traceType = otlpType('ExportTraceServiceRequest');
const validPb = traceType
  .encode(
    traceType.fromObject({
      resourceSpans: [
        {
          scopeSpans: [
            {
              spans: [
                {
                  traceId: Buffer.from('0af7651916cd43dd8448eb211c80319c', 'hex'),
                  spanId: Buffer.from('00000000000000aa', 'hex'),
                  name: 'chat',
                  startTimeUnixNano: (BigInt(NOW - 5000) * 1_000_000n).toString(),
                  endTimeUnixNano: (BigInt(NOW - 4000) * 1_000_000n).toString(),
                  attributes: [{ key: 'gen_ai.request.model', value: { stringValue: 'pb-m' } }],
                },
              ],
            },
          ],
        },
      ],
    }),
  )
  .finish();
for (const [name, body, status] of [
  ['random bytes', Buffer.from(Array.from({ length: 2048 }, (_, i) => (i * 31 + 7) % 256)), 400],
  ['a valid request', validPb, 200],
  ['a truncated valid request', validPb.subarray(0, validPb.length - 7), 400],
  ['a length prefix past the end', Buffer.from([0x0a, 0xff, 0xff, 0xff, 0xff, 0x0f, 0x01]), 400],
  ['a varint past 10 bytes', Buffer.from([0x08, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01]), [200, 400]],
  ['wrong wire type for resourceSpans (skipped as unknown)', Buffer.from([0x0d, 1, 2, 3, 4]), [200, 400]],
  ['an empty body (an empty request)', Buffer.alloc(0), 200],
  ['JSON sent as protobuf', Buffer.from(traces([span(s())])), 400],
  ['invalid UTF-8 in a string field', Buffer.from(validPb).map((b, i, a) => (i > 0 && a[i - 1] === 0x63 && b === 0x68 ? 0xff : b)), 400],
  ['nested groups 5,000 deep', Buffer.from(Array.from({ length: 5000 }, () => [0x0b]).flat()), 400],
] as const) {
  cases.push({ name: `otlp traces protobuf: ${name}`, path: '/v1/traces', body, headers: PB, status: status as number | number[] });
}
for (const [name, headers, status] of [
  ['text/plain', { 'content-type': 'text/plain' }, 415],
  ['no content type', {}, 415],
  ['application/grpc', { 'content-type': 'application/grpc' }, 415],
] as const) {
  cases.push({ name: `otlp content type: ${name}`, path: '/v1/traces', body: traces([span(s())]), headers, status });
}
cases.push({
  name: 'otlp: gzip bomb',
  path: '/v1/traces',
  body: gzipSync(Buffer.alloc(64 * 1024 * 1024, 0x20)),
  headers: { ...JSON_CT, 'content-encoding': 'gzip' },
  status: 413,
});

// ---------- golden sets ----------

const YAML_CT = { 'content-type': 'application/yaml' };
const goldenSet = (name: string, input: unknown = 'hello') => ({ name, checker: 'exact', samples: [{ id: 'a', input, expected: 1 }] });
const wideYaml = (keys: number) =>
  `name: wide\nsamples:\n  - id: a\n    expected: 1\n    input:\n${Array.from({ length: keys }, (_, i) => `      key_${i}: v${i}\n`).join('')}`;
for (const [name, body, headers, status] of [
  ['billion laughs (fixture)', readFileSync(join(FIXTURES, 'billion-laughs.yaml'), 'utf8'), YAML_CT, 400],
  ['js/python tags are plain values (fixture)', readFileSync(join(FIXTURES, 'yaml-tags.yaml'), 'utf8'), YAML_CT, 200],
  ['30,000 keys in one map (YAML)', wideYaml(30_000), YAML_CT, [400, 413]],
  [
    '30,000 keys in one map (JSON)',
    JSON.stringify(goldenSet('wide-json', Object.fromEntries(Array.from({ length: 30_000 }, (_, i) => [`k${i}`, i])))),
    JSON_CT,
    400,
  ],
  ['nested 2,000 deep (JSON)', JSON.stringify(goldenSet('deep-json', JSON.parse('['.repeat(2000) + ']'.repeat(2000)))), JSON_CT, 400],
  ['nested 2,000 deep (YAML flow)', `name: deep\nsamples:\n  - id: a\n    expected: 1\n    input: ${'['.repeat(2000)}${']'.repeat(2000)}\n`, YAML_CT, 400],
  [
    'nested 200 deep (YAML block)',
    'name: deepblock\nsamples:\n  - id: a\n    expected: 1\n    input:\n' +
      Array.from({ length: 200 }, (_, i) => `${' '.repeat(6 + i * 2)}k:`).join('\n') +
      ' 1\n',
    YAML_CT,
    400,
  ],
  ['1,001 samples', JSON.stringify({ name: 'many', samples: Array.from({ length: 1001 }, (_, i) => ({ id: `s${i}`, input: i, expected: i })) }), JSON_CT, 400],
  ['past 1 MiB', JSON.stringify(goldenSet('big', 'x'.repeat(1_100_000))), JSON_CT, 413],
  ['two YAML documents', 'name: a\nsamples: [{id: a, expected: 1}]\n---\nname: b\n', YAML_CT, 400],
  ['duplicate YAML keys', 'name: a\nname: b\nsamples: [{id: a, expected: 1}]\n', YAML_CT, 400],
  ['invalid YAML', 'name: [a\n', YAML_CT, 400],
  ['invalid JSON', '{"name":', JSON_CT, 400],
  ['a name with path traversal', JSON.stringify(goldenSet('../../etc/passwd')), JSON_CT, 400],
  ['a name with SQL', JSON.stringify(goldenSet("x'; DROP TABLE--")), JSON_CT, 400],
  ['__proto__ key (JSON)', '{"name":"proto","__proto__":{"admin":true},"samples":[{"id":"a","expected":1}]}', JSON_CT, 400],
  ['__proto__ key (YAML)', 'name: protoyaml\n__proto__: {admin: true}\nsamples: [{id: a, expected: 1}]\n', YAML_CT, 400],
  ['an invalid regex checker', JSON.stringify({ name: 're', checker: 'regex', samples: [{ id: 'a', expected: '(' }] }), JSON_CT, 400],
  [
    'an invalid JSON schema checker',
    JSON.stringify({ name: 'js', checker: 'json_schema', samples: [{ id: 'a', expected: { type: 'nonsense' } }] }),
    JSON_CT,
    400,
  ],
  ['a list with one bad set (all or none)', JSON.stringify([goldenSet('list-ok'), { name: 'list-bad' }]), YAML_CT, 400],
  ['a valid YAML set', 'name: hostile-valid-yaml\nsamples:\n  - id: a\n    input: {text: "hi"}\n    expected: 1\n', YAML_CT, 200],
  ['a valid JSON set with 31 levels', JSON.stringify(goldenSet('hostile-valid-json', JSON.parse('['.repeat(29) + ']'.repeat(29)))), JSON_CT, 200],
] as const) {
  cases.push({ name: `golden sets: ${name}`, path: '/v1/golden/sets', body, headers: headers as Record<string, string>, status: status as number | number[] });
}

// ---------- the run ----------

describe('hostile input on the write routes', () => {
  it('has a corpus of at least 200 cases', () => {
    expect(cases.length).toBeGreaterThanOrEqual(200);
  });

  // Sequential on purpose: one case at a time, so a case that breaks the server is the one named.
  it.each(cases.map((c) => [c.name, c] as const))('%s', async (_name, c) => {
    const r = await send(c.path, c.body, c.headers);
    expect(r.status, r.text.slice(0, 500)).toBeLessThan(500);
    if (c.status !== undefined) expect([c.status].flat(), r.text.slice(0, 500)).toContain(r.status);
    if (c.accepted !== undefined) expect(r.json?.accepted, r.text.slice(0, 500)).toBe(c.accepted);
    if (c.rejectedPath !== undefined) {
      const rejected = (r.json?.rejected ?? []) as { index: number; path: string }[];
      expect(
        rejected.map((x) => x.path),
        r.text.slice(0, 500),
      ).toContain(c.rejectedPath);
    }
    if (r.status === 429 || r.status === 503) expect(r.retryAfter).not.toBeNull();
  });

  it('stays up and ready, and stored exactly the accepted rows', async () => {
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
    expect((await fetch(`${server.url}/readyz`)).status).toBe(200);
    const ok = await send('/v1/events', JSON.stringify(ev({ request_id: 'after-corpus' })), NDJSON);
    expect(ok.json).toEqual({ accepted: 1, rejected: [] });
    // Each case's accepted rows are distinct (request_id, ts), plus the OTLP spans that mapped.
    const wanted = cases.filter((c) => c.path === '/v1/events' && c.accepted !== undefined).reduce((n, c) => n + c.accepted!, 0) + 1;
    const q = await send(
      '/v1/query',
      JSON.stringify({ from: '2026-11-30T11:00:00Z', to: '2026-11-30T12:10:00Z', filters: { model: 'hostile-ok' }, measures: ['n'] }),
      JSON_CT,
    );
    expect((q.json as { data: { rows: { n: number }[] } }).data.rows[0]!.n).toBe(wanted);
    // The SQL-looking and traversal values were stored as data.
    const sql = await fetch(`${server.url}/v1/requests/fx-sql-1`);
    expect(((await sql.json()) as { data: { events: { tenant: string }[] } }).data.events[0]!.tenant).toBe("'; DROP TABLE events; --");
    // Duplicate keys: the value validated is the value stored (the last one).
    const dup = ((await (await fetch(`${server.url}/v1/requests/fx-dup-1`)).json()) as { data: { events: { status: string; batch_size: number }[] } }).data
      .events[0]!;
    expect([dup.status, dup.batch_size]).toEqual(['ok', 8]);
    const fbWanted = cases.filter((c) => c.path === '/v1/feedback' && c.accepted !== undefined).reduce((n, c) => n + c.accepted!, 0);
    const resWanted = cases.filter((c) => c.path === '/v1/resources' && c.accepted !== undefined).reduce((n, c) => n + c.accepted!, 0);
    const stats = await server.store.stats();
    expect(stats.feedback).toBe(fbWanted);
    expect(stats.resources).toBeGreaterThanOrEqual(resWanted); // OTLP metrics add samples too
  });

  it('registered only the valid golden sets, and a restart loads exactly those', async () => {
    const names = async () =>
      ((await (await fetch(`${server.url}/v1/golden/sets`)).json()) as { data: { sets: { name: string }[] } }).data.sets.map((x) => x.name).sort();
    expect(await names()).toEqual(['hostile-valid-json', 'hostile-valid-yaml', 'tags']);
    // The tags were read as plain data, never run.
    const sets = (
      (await (await fetch(`${server.url}/v1/golden/sets`)).json()) as { data: { sets: { name: string; definition: { samples: { input: unknown }[] } }[] } }
    ).data.sets;
    expect(sets.find((x) => x.name === 'tags')!.definition.samples[0]!.input).toBe('function () { return process.exit(1) }');
    // A later registration still works (a bad upload left nothing behind).
    expect((await send('/v1/golden/sets', JSON.stringify(goldenSet('after-corpus')), JSON_CT)).status).toBe(200);
    await server.stop();
    server = await start();
    expect(await names()).toEqual(['after-corpus', 'hostile-valid-json', 'hostile-valid-yaml', 'tags']);
  });
});
