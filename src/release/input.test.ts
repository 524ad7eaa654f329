import { describe, expect, it } from 'vitest';
import { InferlensError } from '../schema/index.ts';
import { toComparePlan } from './input.ts';
import { CompareRequestSchema, decode } from '../schema/index.ts';

/** The route's path: decode the body, then plan. */
const plan = (input: unknown) => toComparePlan(decode(CompareRequestSchema, input, 'compare request'));

const FROM = '2026-01-01T00:00:00Z';
const TO = '2026-01-01T01:00:00Z';
const v = (version: string) => ({ filters: { model: 'm', model_version: version } });

function issuesOf(input: unknown): string[] {
  try {
    plan(input);
  } catch (e) {
    expect(e).toBeInstanceOf(InferlensError);
    return (e as InferlensError).issues.map((i) => `${i.path}: ${i.message}`);
  }
  throw new Error('expected invalid_argument');
}

describe('toComparePlan', () => {
  it('uses the top-level window for both sides and applies the tenant to both', () => {
    const p = plan({ baseline: v('v1'), candidate: v('v2'), from: FROM, to: TO, tenant: ['a', 'b'] });
    expect(p.baseline).toEqual({ fromMs: Date.parse(FROM), toMs: Date.parse(TO), filters: { model: 'm', model_version: 'v1', tenant: ['a', 'b'] } });
    expect(p.candidate.filters.tenant).toEqual(['a', 'b']);
    expect(p.tolerance.latencyRelative).toBe(0.05);
    expect(p.maxEventsPerSide).toBe(20_000);
  });
  it('takes offset windows per side (before/after)', () => {
    const p = plan({
      baseline: { ...v('v1'), from: '2026-01-01T00:00:00Z', to: '2026-01-02T00:00:00Z' },
      candidate: { ...v('v1'), from: '2026-01-02T00:00:00Z', to: '2026-01-03T00:00:00Z' },
    });
    expect(p.candidate.fromMs - p.baseline.fromMs).toBe(86_400_000);
  });
  it('names every problem by field path', () => {
    expect(issuesOf({ baseline: v('v1'), candidate: v('v2') })).toEqual([
      'baseline.from: required: give the top-level from/to (same window for both) or this side its own',
      'candidate.from: required: give the top-level from/to (same window for both) or this side its own',
    ]);
    expect(issuesOf({ baseline: v('v1'), candidate: v('v2'), from: TO, to: FROM })).toEqual([
      'baseline.to: must be after from',
      'candidate.to: must be after from',
    ]);
    expect(issuesOf({ baseline: v('v1'), candidate: v('v1'), from: FROM, to: TO })[0]).toMatch(/^candidate: same filters and window/);
    expect(issuesOf({ baseline: { filters: { model: 'm', tenant: 'x' } }, candidate: v('v2'), from: FROM, to: TO, tenant: 'y' })[0]).toMatch(
      /^baseline.filters.tenant: given twice/,
    );
    expect(issuesOf({ baseline: v('v1'), candidate: v('v2'), from: FROM, to: TO, metrics: ['p42(total_ms)'] })[0]).toMatch(/^metrics.0: expected a family/);
    expect(issuesOf({ baseline: v('v1'), candidate: v('v2'), from: FROM, to: TO, max_events_per_side: 50_000 })[0]).toMatch(/^max_events_per_side/);
    expect(issuesOf({ baseline: { filters: { colour: 'red' } }, candidate: v('v2'), from: FROM, to: TO }).join()).toMatch(/baseline.filters/);
  });
  it('accepts families and metric names', () => {
    const p = plan({ baseline: v('v1'), candidate: v('v2'), from: FROM, to: TO, metrics: ['rates', 'p99(exec_ms)'] });
    expect([...(p.metrics ?? [])]).toEqual(['rates', 'p99(exec_ms)']);
  });
});
