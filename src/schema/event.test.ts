import { describe, expect, it } from 'vitest';
import { EVENT_FIELDS, EventInputSchema, checkEvent } from './event.ts';

const NOW = Date.parse('2026-11-30T12:00:00Z');
const base = { ts: '2026-11-30T11:59:00Z', model: 'm', total_ms: 12 };

// One good and several bad values per field kind: the hot-path checker and the zod schema must agree.
const SAMPLES: Record<string, unknown[]> = {
  ts: [
    '2026-11-30T11:00:00.123+02:00',
    '2026-11-30 11:00:00Z',
    NOW - 1,
    'yesterday',
    -5,
    '2026-11-30',
    // Not in the calendar: Date.parse rolls these over into the next day or month.
    '2026-11-31T10:00:00Z',
    '2026-02-29T10:00:00Z',
    '2026-11-30T24:00:00Z',
    '2026-11-30T11:60:00Z',
    '2026-06-30T23:59:60Z',
    '2026-11-30T11:00:00+24:00',
  ],
  id: ['abc', '', 'x'.repeat(129), 5, 'a\ud800', '\udc00b', 'ok \ud83d\ude00'],
  dim: ['v2', '', 'x'.repeat(257), 3, { a: 1 }, 'v\udbff'],
  string: ['spam', '', 'x'.repeat(257), false, '\ud800'],
  text: ['hello', 'x'.repeat(70_000), 1, 'a\udfffb'],
  ms: [0, 12.5, -1, Number.NaN, Number.POSITIVE_INFINITY, '12', 1e12],
  count: [0, 3, -1, 2.5, '3', 2_147_483_647, 2_147_483_648, 3e9, 1e300],
  unit: [0, 0.5, 1, 1.01, -0.1],
  number: [-3.5, Number.NaN, 'x'],
  positive: [2, 0, -1, 1e6, 1e6 + 1, 1e308],
  http_status: [200, 99, 600, 200.5],
  bool: [true, false, 'true', 1],
  status: ['ok', 'rate_limited', 'OK', 'fine'],
  error_type: ['bad_input', 'other', 'oom'],
  attributes: [{ a: 'b' }, { a: 1 }, Object.fromEntries(Array.from({ length: 17 }, (_, i) => [`k${i}`, 'v'])), ['a'], { 'k\ud800': 'v' }, { k: 'v\udc00' }],
  features: [{ f: 1.5 }, { f: 'x' }, {}, { '\ud800': 1 }],
  tags: [['pii'], [''], Array.from({ length: 17 }, () => 't'), 'pii', ['\ud800']],
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
  it('names the path of a lone surrogate, down to the map key', () => {
    expect(checkEvent({ ...base, tenant: 'acme\ud800' }, NOW).issues).toEqual([{ path: 'tenant', message: expect.stringMatching(/lone UTF-16 surrogate/) }]);
    expect(checkEvent({ ...base, attributes: { ok: 'v', bad: 'x\udc00' } }, NOW).issues).toEqual([
      { path: 'attributes.bad', message: expect.stringMatching(/surrogate/) },
    ]);
    expect(checkEvent({ ...base, risk_tags: ['a', '\ud800'] }, NOW).issues[0]?.path).toBe('risk_tags.1');
    // A pair is fine: 😀 is \ud83d\ude00.
    expect(checkEvent({ ...base, tenant: 'smile \ud83d\ude00' }, NOW).issues).toEqual([]);
  });
  it('keeps counts within the 32-bit columns and the sample weight within its bound', () => {
    expect(checkEvent({ ...base, batch_size: 3_000_000_000 }, NOW).issues).toEqual([{ path: 'batch_size', message: 'expected an integer 0 ≤ x ≤ 2147483647' }]);
    expect(checkEvent({ ...base, sample_weight: 1e308 }, NOW).issues).toEqual([{ path: 'sample_weight', message: 'expected a number 0 < x ≤ 1000000' }]);
  });
  it('refuses a date that is not in the calendar instead of rolling it over', () => {
    expect(checkEvent({ ...base, ts: '2026-11-31T10:00:00Z' }, NOW).issues).toEqual([{ path: 'ts', message: expect.stringMatching(/exists in the calendar/) }]);
  });
  it('marks rows the store can read as is', () => {
    expect(checkEvent(base, NOW).canonical).toBe(true);
    expect(checkEvent({ ...base, ts: '2026-11-30T13:59:00+02:00' }, NOW).canonical).toBe(false);
    expect(checkEvent({ ...base, extra: 1 }, NOW).canonical).toBe(false);
    expect(checkEvent({ ...base, tenant: null }, NOW).canonical).toBe(false);
  });
});
