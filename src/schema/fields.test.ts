import { describe, expect, it } from 'vitest';
import { FeedbackSchema } from './feedback.ts';
import { ResourceSampleSchema } from './resource.ts';
import { timestampMs, truncate } from './fields.ts';

describe('timestampMs', () => {
  it('reads RFC 3339 and epoch milliseconds', () => {
    expect(timestampMs('2026-11-30T10:00:00Z')).toBe(Date.UTC(2026, 10, 30, 10));
    expect(timestampMs('2026-11-30 12:00:00.5+02:00')).toBe(Date.UTC(2026, 10, 30, 10, 0, 0, 500));
    expect(timestampMs(1_796_000_000_000)).toBe(1_796_000_000_000);
  });
  it('refuses dates that do not exist and everything else', () => {
    // 2028 is a leap year, 2026 and 2100 are not.
    expect(timestampMs('2028-02-29T00:00:00Z')).toBe(Date.UTC(2028, 1, 29));
    for (const bad of [
      '2026-02-29T00:00:00Z',
      '2100-02-29T00:00:00Z',
      '2026-11-31T00:00:00Z',
      '2026-04-31T00:00:00Z',
      '2026-13-01T00:00:00Z',
      '2026-00-10T00:00:00Z',
      '2026-11-30T23:59:60Z',
      'not',
      '',
      0,
      -1,
      Number.NaN,
      Infinity,
      null,
      {},
      '1796000000000',
    ]) {
      expect(timestampMs(bad), String(bad)).toBeUndefined();
    }
  });
});

describe('truncate', () => {
  it('never splits a surrogate pair', () => {
    const s = 'ab\ud83d\ude00cd'; // a b 😀 c d: the emoji is code units 2 and 3
    expect(truncate(s, 3)).toBe('ab');
    expect(truncate(s, 4)).toBe('ab\ud83d\ude00');
    expect(truncate(s, 10)).toBe(s);
    expect(truncate(s, 3).isWellFormed()).toBe(true);
  });
});

describe('feedback and resource samples', () => {
  const fb = { ts: '2026-11-30T10:00:00Z', request_id: 'r1', kind: 'thumbs', value: true };
  it('refuses a feedback ts that is not a timestamp, instead of storing NULL', () => {
    expect(FeedbackSchema.safeParse(fb).success).toBe(true);
    const r = FeedbackSchema.safeParse({ ...fb, ts: 'not' });
    expect(r.success).toBe(false);
    expect(r.error?.issues[0]?.path).toEqual(['ts']);
    expect(FeedbackSchema.safeParse({ ...fb, ts: '2026-11-31T10:00:00Z' }).success).toBe(false);
  });
  it('refuses lone surrogates with the field path', () => {
    const r = FeedbackSchema.safeParse({ ...fb, request_id: 'r\ud800' });
    expect(r.error?.issues.map((i) => [i.path.join('.'), i.message])).toEqual([['request_id', expect.stringMatching(/surrogate/)]]);
    const s = ResourceSampleSchema.safeParse({ ts: 1_796_000_000_000, node: 'n1', metric: 'm', value: 1, labels: { gpu: '0\udc00' } });
    expect(s.error?.issues.map((i) => i.path.join('.'))).toEqual(['labels.gpu']);
  });
  it('bounds the labels of a resource sample', () => {
    const labels = Object.fromEntries(Array.from({ length: 65 }, (_, i) => [`l${i}`, 'v']));
    expect(ResourceSampleSchema.safeParse({ ts: 1_796_000_000_000, node: 'n1', metric: 'm', value: 1, labels }).success).toBe(false);
  });
});
