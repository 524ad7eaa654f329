import { describe, expect, it } from 'vitest';
import { EVENT_FIELDS, EventInputSchema, checkEvent } from './event.ts';

const NOW = Date.parse('2026-11-30T12:00:00Z');
const base = { ts: '2026-11-30T11:59:00Z', model: 'm', total_ms: 12 };

// One good and several bad values per field kind: the hot-path checker and the zod schema must agree.
const SAMPLES: Record<string, unknown[]> = {
  ts: ['2026-11-30T11:00:00.123+02:00', NOW - 1, 'yesterday', -5, '2026-11-30'],
  id: ['abc', '', 'x'.repeat(129), 5],
  dim: ['v2', '', 'x'.repeat(257), 3, { a: 1 }],
  string: ['spam', '', 'x'.repeat(257), false],
  text: ['hello', 'x'.repeat(70_000), 1],
  ms: [0, 12.5, -1, Number.NaN, Number.POSITIVE_INFINITY, '12', 1e12],
  count: [0, 3, -1, 2.5, '3'],
  unit: [0, 0.5, 1, 1.01, -0.1],
  number: [-3.5, Number.NaN, 'x'],
  positive: [2, 0, -1],
  http_status: [200, 99, 600, 200.5],
  bool: [true, false, 'true', 1],
  status: ['ok', 'rate_limited', 'OK', 'fine'],
  error_type: ['bad_input', 'other', 'oom'],
  attributes: [{ a: 'b' }, { a: 1 }, Object.fromEntries(Array.from({ length: 17 }, (_, i) => [`k${i}`, 'v'])), ['a']],
  features: [{ f: 1.5 }, { f: 'x' }, {}],
  tags: [['pii'], [''], Array.from({ length: 17 }, () => 't'), 'pii'],
};

describe('checkEvent agrees with EventInputSchema', () => {
  for (const f of EVENT_FIELDS) {
    if (f.name === 'ts') continue;
    for (const v of SAMPLES[f.kind] ?? []) {
      it(`${f.name} = ${JSON.stringify(v)?.slice(0, 30)}`, () => {
        const row = { ...base, [f.name]: v };
        const fast = checkEvent(row, NOW).issues.length === 0;
        const zod = EventInputSchema.safeParse(row).success;
        expect(fast).toBe(zod);
      });
    }
  }
  for (const v of SAMPLES.ts!) {
    it(`ts = ${JSON.stringify(v)}`, () => {
      const row = { ...base, ts: v };
      expect(checkEvent(row, NOW).issues.length === 0).toBe(EventInputSchema.safeParse(row).success);
    });
  }
});

describe('checkEvent', () => {
  it('requires ts, model and total_ms or status', () => {
    expect(checkEvent({}, NOW).issues.map((i) => i.path)).toEqual(['ts', 'model', 'total_ms']);
    expect(checkEvent({ ts: NOW, model: 'm', status: 'ok' }, NOW).issues).toEqual([]);
  });
  it('lifts nested stages and names their paths', () => {
    const r = checkEvent({ ...base, stages: { queue_ms: 3, exec_ms: -1, warp_ms: 1 } }, NOW);
    expect(r.issues).toEqual([{ path: 'stages.exec_ms', message: expect.stringMatching(/milliseconds/) }]);
    expect(r.unknown).toEqual(['stages.warp_ms']);
    const ok = checkEvent({ ...base, stages: { queue_ms: 3 } }, NOW);
    expect(ok.event).toMatchObject({ queue_ms: 3 });
    expect(ok.canonical).toBe(false);
  });
  it('rejects the far future and the past beyond retention', () => {
    expect(checkEvent({ ...base, ts: NOW + 11 * 60_000 }, NOW).issues[0]?.path).toBe('ts');
    expect(checkEvent({ ...base, ts: NOW + 9 * 60_000 }, NOW).issues).toEqual([]);
    expect(checkEvent({ ...base, ts: NOW - 8 * 86_400_000 }, NOW, NOW - 7 * 86_400_000).issues[0]?.message).toMatch(/retention/);
  });
  it('marks rows the store can read as is', () => {
    expect(checkEvent(base, NOW).canonical).toBe(true);
    expect(checkEvent({ ...base, ts: '2026-11-30T13:59:00+02:00' }, NOW).canonical).toBe(false);
    expect(checkEvent({ ...base, extra: 1 }, NOW).canonical).toBe(false);
    expect(checkEvent({ ...base, tenant: null }, NOW).canonical).toBe(false);
  });
});
