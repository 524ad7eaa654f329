// The capture policy wired into the pipeline, against a real DuckDB in memory.
import pino from 'pino';
import { Registry } from 'prom-client';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createDuckDBStore } from '../store/index.ts';
import type { Store } from '../store/index.ts';
import { createCapturePolicy } from './capture.ts';
import type { CapturePolicyInput } from './capture.ts';
import { createPipeline } from './pipeline.ts';

const NOW = Date.parse('2026-11-30T12:00:00Z');
let store: Store;
beforeEach(async () => {
  store = await createDuckDBStore({ path: ':memory:' });
  await store.migrate();
});
afterEach(() => store.close());

function make(config: CapturePolicyInput, cardinalityCap = 100) {
  const registry = new Registry();
  const capture = createCapturePolicy({ config, registry, rng: () => 0.999, now: () => NOW });
  return createPipeline({
    store,
    logger: pino({ level: 'silent' }),
    registry,
    now: () => NOW,
    retentionDays: 7,
    cardinalityCap,
    maxQueueRows: 10_000,
    maxBatchRows: 1000,
    capture,
  });
}

const range = { fromMs: NOW - 60_000, toMs: NOW + 60_000, filters: {} };

describe('pipeline capture', () => {
  it('stores kept payloads redacted in samples and strips every payload from events', async () => {
    const p = make({ firstPerVersion: 0 });
    const rows = [
      {
        ts: NOW - 1000,
        request_id: 'e1',
        model: 'm',
        model_version: 'v1',
        status: 'error',
        error_type: 'internal',
        input: 'write to jane@example.com',
        output: 'boom',
        risk_tags: ['pii'],
      },
      { ts: NOW - 900, request_id: 'o1', model: 'm', model_version: 'v1', status: 'ok', input: 'plain secret text', output: 'fine' },
      { ts: NOW - 800, request_id: 'n1', model: 'm', status: 'ok' },
    ];
    // Original lines given (the JSON receiver's fast path): rows with payloads must be re-serialised.
    const reply = await p.writeEvents(rows, { lines: rows.map((r) => JSON.stringify(r)) });
    expect(reply).toEqual({ accepted: 3, rejected: [] });

    const events = await store.listEvents({ ...range, limit: 10 });
    expect(events.map((e) => e.request_id).sort()).toEqual(['e1', 'n1', 'o1']);
    for (const e of events) {
      expect(e.input ?? null).toBeNull();
      expect(e.output ?? null).toBeNull();
      expect(e.risk_tags ?? null).toBeNull();
    }
    const samples = await store.listSamples({ ...range, limit: 10 });
    expect(samples).toHaveLength(1);
    expect(samples[0]).toMatchObject({
      request_id: 'e1',
      reasons: ['error', 'risk_tag'],
      risk_tags: ['pii'],
      sample_weight: 1,
      input: 'write to [EMAIL]',
      output: 'boom',
      status: 'error',
      error_type: 'internal',
    });
  });

  it('records samples under the capped dimension values, like the events', async () => {
    const p = make({ firstPerVersion: 0 }, 1);
    await p.writeEvents([
      { ts: NOW - 1000, model: 'm', tenant: 'a', status: 'ok' },
      { ts: NOW - 900, request_id: 'x', model: 'm', tenant: 'b', status: 'error', input: 'in' },
    ]);
    const [s] = await store.listSamples({ ...range, limit: 10 });
    expect(s?.tenant).toBe('__other__');
    expect(await store.listSamples({ ...range, filters: { tenant: '__other__' }, limit: 10 })).toHaveLength(1);
  });

  it('keeps nothing but still strips payloads when capture is disabled', async () => {
    const p = make({ enabled: false });
    await p.writeEvents([{ ts: NOW - 1000, request_id: 'e', model: 'm', status: 'error', input: 'raw text' }]);
    expect(await store.listSamples({ ...range, limit: 10 })).toEqual([]);
    const [e] = await store.listEvents({ ...range, limit: 10 });
    expect(e?.input ?? null).toBeNull();
  });

  it('uses the default policy when none is given', async () => {
    const p = createPipeline({
      store,
      logger: pino({ level: 'silent' }),
      registry: new Registry(),
      now: () => NOW,
      retentionDays: 7,
      cardinalityCap: 100,
      maxQueueRows: 10_000,
      maxBatchRows: 1000,
    });
    await p.writeEvents([{ ts: NOW - 1000, request_id: 'd', model: 'm', status: 'timeout', input: 'call +1 415 555 2671' }]);
    const [s] = await store.listSamples({ ...range, limit: 10 });
    expect(s).toMatchObject({ request_id: 'd', input: 'call [PHONE]' });
    expect(s?.reasons[0]).toBe('error');
  });
});
