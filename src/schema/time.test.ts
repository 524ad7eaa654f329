import { describe, expect, it } from 'vitest';
import { LabelsRequestSchema, QueryRequestSchema, decode } from './requests.ts';
import { MAX_STEP_MS, daysInMonth, parseDurationMs, parseRfc3339 } from './time.ts';

describe('parseRfc3339', () => {
  it('reads RFC 3339 date-times to epoch ms, offsets included', () => {
    expect(parseRfc3339('2026-01-01T00:00:00Z')).toBe(Date.UTC(2026, 0, 1));
    expect(parseRfc3339('2026-01-01T00:00:00.5Z')).toBe(Date.UTC(2026, 0, 1) + 500);
    expect(parseRfc3339('2026-01-01T00:00:00.123456789Z')).toBe(Date.UTC(2026, 0, 1) + 123);
    // 02:00 at +02:00 is midnight UTC; 19:00 at -05:00 the previous day is too.
    expect(parseRfc3339('2026-01-01T02:00:00+02:00')).toBe(Date.UTC(2026, 0, 1));
    expect(parseRfc3339('2025-12-31t19:00:00-05:00')).toBe(Date.UTC(2026, 0, 1));
    expect(parseRfc3339('2024-02-29T12:00:00Z')).toBe(Date.UTC(2024, 1, 29, 12));
    expect(parseRfc3339('0001-01-01T00:00:00Z')).toBe(-62135596800000);
    expect(parseRfc3339('9999-12-31T23:59:59.999Z')).toBe(253402300799999);
  });

  it('refuses what Date.parse accepts but is not a real RFC 3339 instant', () => {
    for (const s of [
      '2026-11-31T00:00:00Z', // November has 30 days (Date.parse: Dec 1)
      '2025-02-29T00:00:00Z', // not a leap year
      '2100-02-29T00:00:00Z', // a century, not a leap year
      '+275760-09-13T00:00:00.000Z', // Date.parse: the last representable instant
      '2026-01-01', // a date, no time
      '2026-01-01T00:00:00', // no offset
      'Jan 1 2026',
      '2026-01-01T24:00:00Z',
      '2026-01-01T23:60:00Z',
      '2026-01-01T23:59:60Z', // a leap second: JavaScript time has none
      '2026-01-01T00:00:00+24:00',
      '2026-13-01T00:00:00Z',
      '2026-00-10T00:00:00Z',
      '1e3',
      '',
      ' 2026-01-01T00:00:00Z',
    ]) {
      expect(parseRfc3339(s), s).toBeUndefined();
    }
  });

  it('knows the days of each month', () => {
    expect([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12].map((m) => daysInMonth(2023, m))).toEqual([31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]);
    expect([daysInMonth(2024, 2), daysInMonth(2000, 2), daysInMonth(1900, 2)]).toEqual([29, 29, 28]);
  });
});

describe('parseDurationMs', () => {
  it('reads ms, s, m, h, d', () => {
    expect(['250ms', '30s', '1m', '6h', '7d'].map(parseDurationMs)).toEqual([250, 30_000, 60_000, 21_600_000, 604_800_000]);
  });
  it('refuses malformed and unsafe durations', () => {
    for (const s of ['99999999999999999999d', '1e3s', '-1m', '1.5h', '1w', 'm', '', '104249991375d']) expect(parseDurationMs(s), s).toBeUndefined();
  });
});

describe('request decoding', () => {
  const from = '2026-01-01T00:00:00Z';
  const to = '2026-01-01T01:00:00Z';
  it('turns a query body into a QuerySpec in epoch ms', () => {
    expect(decode(QueryRequestSchema, { from, to, step: '1m', measures: ['count', 'p99(total_ms)'], group_by: ['model'] }, 'query')).toEqual({
      fromMs: Date.UTC(2026, 0, 1),
      toMs: Date.UTC(2026, 0, 1, 1),
      stepMs: 60_000,
      filters: {},
      groupBy: ['model'],
      includeProbes: false,
      limit: 10_000,
      measures: [
        { name: 'count', measure: { kind: 'count' } },
        { name: 'p99(total_ms)', measure: { kind: 'quantile', q: 0.99, field: 'total_ms' } },
      ],
    });
  });
  it('names the field of every problem: a huge step, a reversed range, a bad measure, an unknown key', () => {
    const issues = (body: unknown) => {
      try {
        decode(QueryRequestSchema, body, 'query');
      } catch (e) {
        return (e as { issues: { path: string }[] }).issues.map((i) => i.path);
      }
      return [];
    };
    expect(issues({ from, to, step: '99999999999999999999d', measures: ['count'] })).toEqual(['step']);
    expect(issues({ from, to, step: `${MAX_STEP_MS / 86_400_000 + 1}d`, measures: ['count'] })).toEqual(['step']);
    expect(issues({ from, to, step: '1s', measures: ['count'], approx: true, limit: 5 }).length).toBe(0);
    expect(issues({ from: to, to: from, measures: ['count'] })).toEqual(['to']);
    expect(issues({ from, to, measures: ['count', 'p42(total_ms)'] })).toEqual(['measures.1']);
    // JSON.parse makes "__proto__" an own key: refused like any unknown key, never merged.
    expect(issues(JSON.parse(`{"from":"${from}","to":"${to}","measures":["count"],"__proto__":{"limit":0}}`))).toEqual(['']);
    expect(issues(JSON.parse(`{"from":"${from}","to":"${to}","measures":["count"],"filters":{"__proto__":"x","constructor":"y"}}`)).length).toBeGreaterThan(0);
    expect(issues({ from: '2026-11-31T00:00:00Z', to, measures: ['count'] })).toEqual(['from']);
  });
  it('query strings: limit=abc is a 400 naming limit, not a 500', () => {
    expect(() => decode(LabelsRequestSchema, { dimension: 'model', limit: 'abc' }, 'labels request')).toThrow(/limit: expected a whole number from 1 to 1000/);
    expect(decode(LabelsRequestSchema, { dimension: 'model', limit: '50' }, 'labels request')).toEqual({ dimension: 'model', limit: 50 });
    expect(() => decode(LabelsRequestSchema, { dimension: '../etc/passwd' }, 'labels request')).toThrow(/dimension/);
  });
});
