import { describe, expect, it } from 'vitest';
import { checkEvent, valueOk } from '../schema/index.ts';
import type { EventInput } from '../schema/index.ts';
import { MAX_TEXT_CHARS } from './capture.ts';
import type { CaptureHook, EventDefaults } from './options.ts';
import { roundMs, startTimer } from './request-timer.ts';
import type { TimerHost } from './request-timer.ts';

/** A host with a fake monotonic clock the test advances by hand. */
function fakeHost(opts: { defaults?: EventDefaults; capture?: CaptureHook } = {}) {
  let nowMs = 1000;
  const events: Partial<EventInput>[] = [];
  const warnings: string[] = [];
  const host: TimerHost = {
    now: () => nowMs,
    defaults: opts.defaults ?? { model: 'clf', model_version: 'v1', node: 'n1' },
    capture: opts.capture,
    warn: (key) => void warnings.push(key),
    // Materialised at once here; the exporter does it later (the 'by reference' test covers that).
    emit: (row) => void events.push(row.toJSON()),
  };
  return { host, events, warnings, advance: (ms: number) => void (nowMs += ms) };
}

describe('RequestTimer', () => {
  it('measures each stage between marks, and the total from start', () => {
    const { host, events, advance } = fakeHost();
    const t = startTimer(host, { tenant: 'acme', entry: 'chat', route_rule: 'default' });
    advance(1.2);
    t.stage('ingress');
    advance(30);
    t.stage('queue');
    advance(4.5);
    t.stage('batch');
    advance(50.25);
    t.stage('exec');
    advance(3);
    t.stage('post');
    advance(0.05);
    t.set({ batch_size: 8, label: 'spam', confidence: 0.93 }).end();
    expect(events).toHaveLength(1);
    const e = events[0]!;
    expect(e).toMatchObject({
      model: 'clf',
      model_version: 'v1',
      node: 'n1',
      tenant: 'acme',
      entry: 'chat',
      route_rule: 'default',
      ingress_ms: 1.2,
      queue_ms: 30,
      batch_ms: 4.5,
      exec_ms: 50.25,
      post_ms: 3,
      // 1.2 + 30 + 4.5 + 50.25 + 3 + 0.05 = 89 ms
      total_ms: 89,
      status: 'ok',
      batch_size: 8,
      label: 'spam',
      confidence: 0.93,
    });
    expect(checkEvent(e, Date.now()).issues).toEqual([]);
  });

  it('rounds latencies to microseconds', () => {
    expect(roundMs(12.345_67)).toBe(12.346);
    expect(roundMs(0.000_4)).toBe(0);
    expect(roundMs(-3)).toBe(0);
    const { host, events, advance } = fakeHost();
    const t = startTimer(host, {});
    advance(0.123_456_7);
    t.stage('exec');
    t.end();
    expect(events[0]).toMatchObject({ exec_ms: 0.123, total_ms: 0.123 });
  });

  it('mark() leaves a gap unattributed; a repeated stage adds up', () => {
    const { host, events, advance } = fakeHost();
    const t = startTimer(host, {});
    advance(10);
    t.mark();
    advance(5);
    t.stage('exec');
    advance(2);
    t.stage('post');
    advance(7);
    t.stage('exec');
    t.end();
    expect(events[0]).toMatchObject({ exec_ms: 12, post_ms: 2, total_ms: 24 });
    expect(events[0]!.ingress_ms).toBeUndefined();
  });

  it('emits exactly one event: a second end() and later calls do nothing', () => {
    const { host, events, advance } = fakeHost();
    const t = startTimer(host, {});
    advance(5);
    t.end();
    t.end({ status: 'error' });
    t.set({ label: 'late' }).stage('post').fail('internal');
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ status: 'ok', total_ms: 5 });
    expect(events[0]!.label).toBeUndefined();
  });

  it('assembles the event when serialised, unaffected by calls after end()', () => {
    const rows: { toJSON(): Partial<EventInput> }[] = [];
    const { host, advance } = fakeHost();
    host.emit = (row) => void rows.push(row);
    const t = startTimer(host, { tenant: 'acme' });
    advance(2);
    t.stage('exec').set({ label: 'a' }).end();
    t.set({ label: 'b' }).fail('internal').end({ status: 'timeout' });
    expect(rows).toHaveLength(1);
    const text = JSON.stringify(rows[0]);
    expect(JSON.parse(text)).toEqual({
      model: 'clf',
      model_version: 'v1',
      node: 'n1',
      tenant: 'acme',
      ts: expect.any(Number),
      request_id: t.requestId,
      exec_ms: 2,
      total_ms: 2,
      label: 'a',
      status: 'ok',
    });
  });

  it('fail() records the cause; end() may override the status', () => {
    const { host, events, warnings } = fakeHost();
    startTimer(host, {}).fail('dependency_timeout', { http_status: 504 }).end();
    startTimer(host, {}).fail('resource_exhausted').end({ status: 'rate_limited', http_status: 429 });
    startTimer(host, {})
      .fail('oops' as never)
      .end();
    expect(events.map((e) => [e.status, e.error_type, e.http_status])).toEqual([
      ['error', 'dependency_timeout', 504],
      ['rate_limited', 'resource_exhausted', 429],
      ['error', 'other', undefined],
    ]);
    expect(warnings).toEqual(['error_type:oops']);
  });

  it('derives TTFT and time per output token', () => {
    const { host, events, advance } = fakeHost();
    const t = startTimer(host, {});
    advance(200);
    t.firstToken();
    advance(1000);
    t.firstToken();
    // total 1 200 ms, TTFT 200 ms, 101 tokens → (1 200 − 200) / 100 = 10 ms per token.
    t.set({ output_tokens: 101 }).end();
    expect(events[0]).toMatchObject({ ttft_ms: 200, tpot_ms: 10, total_ms: 1200 });
  });

  it('stamps ts and a random request_id at start, unless given', () => {
    const { host, events } = fakeHost();
    const before = Date.now();
    const a = startTimer(host, {});
    const b = startTimer(host, { request_id: 'req-1' });
    a.end();
    b.end();
    expect(a.requestId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(events[0]!.request_id).toBe(a.requestId);
    expect(b.requestId).toBe('req-1');
    expect(events[0]!.ts as number).toBeGreaterThanOrEqual(before);
    expect(events[0]!.ts as number).toBeLessThanOrEqual(Date.now());
  });

  it('request dimensions override defaults; attributes merge', () => {
    const { host, events } = fakeHost({ defaults: { model: 'clf', node: 'n1', attributes: { region: 'eu', az: 'a' } } });
    startTimer(host, { node: 'n2', attributes: { az: 'b' } }).end();
    expect(events[0]).toMatchObject({ model: 'clf', node: 'n2', attributes: { region: 'eu', az: 'b' } });
  });

  it('an unknown stage name is warned about, not thrown', () => {
    const { host, events, warnings } = fakeHost();
    const t = startTimer(host, {});
    expect(() => t.stage('decode' as never).stage('constructor' as never)).not.toThrow();
    t.end();
    expect(events).toHaveLength(1);
    expect(warnings).toEqual(['stage:decode', 'stage:constructor']);
  });
});

describe('payload capture', () => {
  it('without a hook, attaches the payload given, truncated to the schema limit', () => {
    const { host, events } = fakeHost();
    const big = 'x'.repeat(MAX_TEXT_CHARS - 1) + '😀' + 'tail';
    startTimer(host, {})
      .capture({ input: big, output: { label: 'spam' }, risk_tags: ['pii', '', 'y'.repeat(100)] })
      .end();
    const e = events[0]!;
    expect(e.input).toHaveLength(MAX_TEXT_CHARS - 1); // the emoji would be split: cut before it
    expect(valueOk('text', e.input)).toBe(true);
    expect(e.output).toBe('{"label":"spam"}');
    expect(e.risk_tags).toEqual(['pii', 'y'.repeat(64)]);
    expect(checkEvent(e, Date.now()).issues).toEqual([]);
  });

  it('the hook decides: keep, drop, replace; a throwing hook captures nothing', () => {
    const seen: unknown[] = [];
    const hook: CaptureHook = (input, output, event) => {
      seen.push([input, output, event.status]);
      if (input === 'keep') return true;
      if (input === 'drop') return false;
      if (input === 'boom') throw new Error('hook bug');
      return { input: '[redacted]', risk_tags: ['redacted'] };
    };
    const { host, events, warnings } = fakeHost({ capture: hook });
    for (const input of ['keep', 'drop', 'secret', 'boom']) startTimer(host, {}).capture({ input, output: 'o' }).end();
    startTimer(host, {}).fail('internal').end();
    expect(events.map((e) => [e.input, e.output, e.risk_tags])).toEqual([
      ['keep', 'o', undefined],
      [undefined, undefined, undefined],
      ['[redacted]', undefined, ['redacted']],
      [undefined, undefined, undefined],
      ['[redacted]', undefined, ['redacted']],
    ]);
    expect(seen.at(-1)).toEqual([undefined, undefined, 'error']);
    expect(warnings).toEqual(['capture:threw']);
  });
});
