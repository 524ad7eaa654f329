/**
 * The probe runner: on a schedule, sends every golden sample to every configured inference endpoint
 * (one per model version), checks the answer, and records one event per call with `probe: true`
 * (so user-traffic statistics leave it out by default) and
 * `attributes: { golden_set, golden_id, golden_pass: 'true' | 'false' }`. A call that fails
 * (connection refused, timeout, non-2xx) is recorded with status `error` and golden_pass 'false'.
 *
 * Bounded: at most `concurrency` calls in flight, one run at a time (the next run is scheduled when
 * the previous one ends), each call with its own timeout. Timers are unref'd; the clock and fetch
 * are injectable for tests.
 */
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import type { IngestReply } from '../schema/index.ts';
import type { CompiledSample, CompiledSet } from './golden.ts';

export const ProbeTargetSchema = z
  .object({
    model: z.string().min(1).max(256),
    model_version: z.string().min(1).max(256),
    url: z.string().regex(/^https?:\/\/\S+$/, { error: 'expected an http(s) URL' }),
    headers: z.record(z.string(), z.string()).default({}),
    /**
     * JSON body template. A string that is exactly "{{input}}" becomes the sample's input as is
     * (object, number, …); inside longer strings {{input}}, {{id}}, {{model}}, {{model_version}}
     * are replaced by their text.
     */
    body: z.unknown().default({ input: '{{input}}' }),
    /** Dot path of the output in the JSON reply (e.g. `label`, `choices.0.text`); default the whole reply. */
    output_path: z.string().min(1).max(256).optional(),
    timeout_ms: z.number().int().min(1).max(120_000).default(10_000),
  })
  .strict();
export type ProbeTarget = z.infer<typeof ProbeTargetSchema>;

export const ProbeScheduleSchema = z
  .object({
    interval_ms: z.number().int().min(1000).default(300_000),
    concurrency: z.number().int().min(1).max(64).default(4),
    targets: z.array(ProbeTargetSchema).max(100).default([]),
  })
  .strict();

/** Where probe events go: the pipeline's EventSink (validated like any other event). */
export interface ProbeEventSink {
  writeEvents(rows: readonly unknown[]): Promise<IngestReply>;
}

export interface ProbeLogger {
  warn(obj: object, msg: string): void;
}

export interface ProbeRunnerOptions {
  /** The golden sets to run, read at the start of every run (sets registered later are picked up). */
  sets: () => readonly CompiledSet[];
  targets: readonly ProbeTarget[];
  sink: ProbeEventSink;
  intervalMs: number;
  concurrency?: number;
  now?: () => number;
  fetch?: typeof fetch;
  logger?: ProbeLogger;
}

export interface ProbeRunSummary {
  calls: number;
  passed: number;
  failed: number;
  /** Calls that did not get a 2xx answer (counted in failed too). */
  errors: number;
  /** Events the sink accepted / rejected. */
  written: number;
  rejected: number;
}

export interface ProbeRunner {
  /** One pass over every target × set × sample; resolves when the events are written. */
  runOnce(): Promise<ProbeRunSummary>;
  /** Runs now and then every intervalMs after each run ends. Idempotent. */
  start(): void;
  /** Stops scheduling and waits for a run in flight. Idempotent. */
  stop(): Promise<void>;
}

/** Fills the body template for one sample. */
export function renderTemplate(template: unknown, vars: { input: unknown; id: string; model: string; model_version: string }): unknown {
  if (typeof template === 'string') {
    if (template === '{{input}}') return vars.input;
    return template.replace(/\{\{(input|id|model|model_version)\}\}/g, (_, k: string) => {
      const v = vars[k as keyof typeof vars];
      return typeof v === 'string' ? v : (JSON.stringify(v) ?? '');
    });
  }
  if (Array.isArray(template)) return template.map((t) => renderTemplate(t, vars));
  if (template !== null && typeof template === 'object') {
    return Object.fromEntries(Object.entries(template).map(([k, v]) => [k, renderTemplate(v, vars)]));
  }
  return template;
}

/** Reads a dot path (`choices.0.text`) from a parsed JSON value; undefined when absent. */
export function atPath(value: unknown, path: string | undefined): unknown {
  if (path === undefined) return value;
  let cur = value;
  for (const part of path.split('.')) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<string, unknown>)[part];
  }
  return cur;
}

const clip = (s: string, n: number) => (s.length > n ? s.slice(0, n - 1) + '…' : s);

/** Runs up to `limit` tasks at a time, in order of the list. */
async function pool<T>(items: readonly T[], limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await fn(items[next++] as T);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}

export function createProbeRunner(o: ProbeRunnerOptions): ProbeRunner {
  const now = o.now ?? Date.now;
  const fetchFn = o.fetch ?? fetch;
  const concurrency = o.concurrency ?? 4;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let running: Promise<ProbeRunSummary> | undefined;
  let started = false;

  async function probe(
    target: ProbeTarget,
    set: CompiledSet,
    sample: CompiledSample,
  ): Promise<{ event: Record<string, unknown>; pass: boolean; error: boolean }> {
    const vars = { input: sample.input, id: sample.id, model: target.model, model_version: target.model_version };
    const ts = now();
    const t0 = performance.now();
    const event: Record<string, unknown> = {
      ts,
      request_id: `probe-${randomUUID()}`,
      model: target.model,
      model_version: target.model_version,
      entry: 'golden_probe',
      probe: true,
    };
    let pass = false;
    let error = false;
    let reason: string | undefined;
    try {
      const res = await fetchFn(target.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...target.headers },
        body: JSON.stringify(renderTemplate(target.body, vars)),
        signal: AbortSignal.timeout(target.timeout_ms),
      });
      const text = await res.text();
      event.http_status = res.status;
      if (!res.ok) {
        error = true;
        Object.assign(event, { status: 'error', error_type: 'other' });
        reason = `HTTP ${res.status}`;
      } else {
        let body: unknown = text;
        try {
          body = JSON.parse(text);
        } catch {
          // a plain-text answer is checked as text
        }
        const output = atPath(body, target.output_path);
        const r = sample.check(output);
        pass = r.pass;
        reason = r.reason;
        event.status = 'ok';
        const label = typeof output === 'string' ? output : (atPath(output, 'label') as unknown);
        if (typeof label === 'string' && label.length > 0 && label.length <= 256) event.label = label;
      }
    } catch (e) {
      error = true;
      const timedOut = e instanceof Error && (e.name === 'TimeoutError' || e.name === 'AbortError');
      Object.assign(event, { status: 'error', error_type: timedOut ? 'dependency_timeout' : 'other' });
      reason = timedOut ? `no answer within ${target.timeout_ms} ms` : `call failed: ${e instanceof Error ? e.message : String(e)}`;
    }
    event.total_ms = Math.round((performance.now() - t0) * 1000) / 1000;
    const attributes: Record<string, string> = { golden_set: set.name, golden_id: sample.id, golden_pass: pass ? 'true' : 'false' };
    if (reason) attributes.golden_reason = clip(reason, 256);
    event.attributes = attributes;
    return { event, pass, error };
  }

  async function run(): Promise<ProbeRunSummary> {
    const sets = o.sets();
    const work: { target: ProbeTarget; set: CompiledSet; sample: CompiledSample }[] = [];
    for (const target of o.targets)
      for (const set of sets) if (set.model === undefined || set.model === target.model) for (const sample of set.samples) work.push({ target, set, sample });
    const summary: ProbeRunSummary = { calls: 0, passed: 0, failed: 0, errors: 0, written: 0, rejected: 0 };
    const events: Record<string, unknown>[] = [];
    await pool(work, concurrency, async (w) => {
      const r = await probe(w.target, w.set, w.sample);
      summary.calls++;
      if (r.pass) summary.passed++;
      else summary.failed++;
      if (r.error) summary.errors++;
      events.push(r.event);
    });
    if (events.length > 0) {
      try {
        const reply = await o.sink.writeEvents(events);
        summary.written = reply.accepted;
        summary.rejected = reply.rejected.length;
        if (reply.rejected.length > 0) o.logger?.warn({ rejected: reply.rejected.length, first: reply.rejected[0] }, 'golden probe events rejected');
      } catch (e) {
        summary.rejected = events.length;
        o.logger?.warn({ err: e, events: events.length }, 'golden probe events not written');
      }
    }
    return summary;
  }

  const runner: ProbeRunner = {
    runOnce() {
      // One run at a time: a call during a run shares it.
      running ??= run().finally(() => (running = undefined));
      return running;
    },
    start() {
      if (started) return;
      started = true;
      const tick = () => {
        runner
          .runOnce()
          .catch((e: unknown) => o.logger?.warn({ err: e }, 'golden probe run failed'))
          .finally(() => {
            if (!started) return;
            timer = setTimeout(tick, o.intervalMs);
            timer.unref();
          });
      };
      tick();
    },
    async stop() {
      started = false;
      if (timer) clearTimeout(timer);
      timer = undefined;
      await running?.catch(() => undefined);
    },
  };
  return runner;
}
