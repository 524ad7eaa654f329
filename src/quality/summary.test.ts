import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createDuckDBStore } from '../store/index.ts';
import type { Store } from '../store/index.ts';
import type { QualityReads } from './reads.ts';
import { qualitySummary } from './summary.ts';
import { inferModelType } from './model-type.ts';
import { MIN, T0, iso, lines, readsOver } from './quality.test-support.ts';
import { QualitySummaryRequestSchema, decode } from '../schema/index.ts';
import type { SummaryOptions } from './summary.ts';

/** The route's path: decode the body, then answer. */
const summary = async (reads: QualityReads, input: unknown, options?: SummaryOptions) =>
  qualitySummary(reads, decode(QualitySummaryRequestSchema, input, 'quality summary request'), options);

const CONF = [0.05, 0.15, 0.25, 0.35, 0.45, 0.55, 0.65, 0.75, 0.85, 0.95];

/**
 * Current window [T0, T0+10m):
 *  clf: 10 rows, one confidence per 0.1 bin; labels ham ×6 (i < 6), spam ×4; v1 = i < 5, v2 = i ≥ 5;
 *       one empty (i = 0). Previous window: spam ×8, ham ×2.
 *  gen: output_length 100..400, output_tokens 10..40, ttft 50..80 ms, one refused, one malformed,
 *       finish_reason stop ×3, length ×1.
 *  rk:  scores 0.1..0.4, clicks on rk1 and rk2, a conversion on rk1.
 */
async function seed(store: Store) {
  await store.appendEvents(
    lines([
      ...CONF.map((c, i) => ({
        ts: T0 + i * 1000,
        request_id: `c${i}`,
        model: 'clf',
        model_version: i < 5 ? 'v1' : 'v2',
        status: 'ok',
        label: i < 6 ? 'ham' : 'spam',
        confidence: c,
        empty: i === 0,
      })),
      ...Array.from({ length: 10 }, (_, i) => ({
        ts: T0 - 5 * MIN + i * 1000,
        model: 'clf',
        model_version: 'v1',
        status: 'ok',
        label: i < 8 ? 'spam' : 'ham',
        confidence: 0.9,
      })),
      ...[1, 2, 3, 4].map((k) => ({
        ts: T0 + k * 1000,
        request_id: `g${k}`,
        model: 'gen',
        status: 'ok',
        output_length: k * 100,
        output_tokens: k * 10,
        ttft_ms: 40 + k * 10,
        refused: k === 4,
        format_ok: k !== 3,
        finish_reason: k === 4 ? 'length' : 'stop',
      })),
      ...[1, 2, 3, 4].map((k) => ({ ts: T0 + k * 1000, request_id: `rk${k}`, model: 'rk', status: 'ok', score: k / 10 })),
    ]),
  );
  await store.appendFeedback([
    { ts: T0 + MIN, request_id: 'rk1', kind: 'click', value: true },
    { ts: T0 + MIN, request_id: 'rk2', kind: 'click', value: true },
    { ts: T0 + MIN, request_id: 'rk1', kind: 'conversion', value: true },
  ]);
}

describe('quality summary', () => {
  let store: Store;
  let reads: QualityReads;
  beforeEach(async () => {
    store = await createDuckDBStore({ path: ':memory:', threads: 2 });
    await store.migrate();
    reads = readsOver(store);
    await seed(store);
  });
  afterEach(() => store.close());

  it('infers the type from the fields present', () => {
    expect(inferModelType(new Set(['label', 'confidence']))).toBe('classifier');
    expect(inferModelType(new Set(['label', 'ttft_ms']))).toBe('generative');
    expect(inferModelType(new Set(['score']))).toBe('ranker');
    expect(inferModelType(new Set())).toBe('unknown');
  });

  it('gives each model the measures of its type', async () => {
    const r = await summary(reads, { from: iso(T0), to: iso(T0 + 10 * MIN) }, { modelTypes: { rk: 'ranker' } });
    expect(r.models.map((m) => [m.model, m.type, m.source])).toEqual([
      ['clf', 'classifier', 'inferred'],
      ['gen', 'generative', 'inferred'],
      ['rk', 'ranker', 'declared'],
    ]);
    const [clf, gen, rk] = r.models;
    expect(r.low_confidence).toBe(0.6);
    // The server's cut-off is the default; the request may still name its own.
    const strict = await summary(reads, { from: iso(T0), to: iso(T0 + 10 * MIN), filters: { model: 'clf' } }, { lowConfidence: 0.9 });
    expect(strict.low_confidence).toBe(0.9);
    expect(Object.keys(strict.models[0]!.measures[0]!)).toContain('below_rate(confidence, 0.9)');

    // Classifier: 6 of 10 confidences < 0.6; 1 of 10 empty; P50 of the 10 values (type 7):
    // h = 9·0.5 = 4.5 → 0.45 + 0.5·(0.55 − 0.45) = 0.5.
    expect(clf!.measures).toEqual([
      expect.objectContaining({
        count: 10,
        n: 10,
        'below_rate(confidence, 0.6)': 0.6,
        empty_rate: 0.1,
        'p50(confidence)': expect.closeTo(0.5, 9),
        'max(confidence)': 0.95,
      }),
    ]);
    expect(clf!.labels).toEqual([
      { label: 'ham', count: 6, share: 0.6 },
      { label: 'spam', count: 4, share: 0.4 },
    ]);
    // One value per bin: every share is 0.1.
    expect(clf!.confidence_histogram!.rows).toHaveLength(1);
    for (const s of clf!.confidence_histogram!.rows[0]!.shares) expect(s).toBeCloseTo(0.1, 9);
    // Key classes vs the previous window: spam 4/10 now vs 8/10 before. Expected counts of
    // [[4, 6], [8, 2]] go below 5, so Fisher's exact test: two-sided p = 0.1698 (scipy
    // fisher_exact([[4,6],[8,2]]) → 0.16980). Both classes give the same table, so BH q = p.
    const shift = clf!.key_class_shift!;
    expect(shift.previous).toEqual({ from: iso(T0 - 10 * MIN), to: iso(T0) });
    expect(shift.classes.map((c) => [c.label, c.share, c.previous_share, c.method])).toEqual([
      ['ham', 0.6, 0.2, 'fisher'],
      ['spam', 0.4, 0.8, 'fisher'],
    ]);
    expect(shift.classes[1]!.delta).toBeCloseTo(-0.4, 12);
    expect(shift.classes[1]!.p_value).toBeCloseTo(0.169802, 5);
    expect(shift.classes[1]!.q_value).toBeCloseTo(0.169802, 5);

    // Generative: lengths 100..400 → P50 250; 1 of 4 refused, 1 of 4 malformed; TTFT 50..80 → P50 65.
    expect(gen!.measures[0]).toMatchObject({
      n: 4,
      refused_rate: 0.25,
      format_error_rate: 0.25,
      empty_rate: null,
      'p50(output_length)': 250,
      'max(output_length)': 400,
      'p50(ttft_ms)': 65,
      'mean(output_tokens)': 25,
    });
    expect(gen!.finish_reasons).toEqual([
      { finish_reason: 'length', count: 1, share: 0.25 },
      { finish_reason: 'stop', count: 3, share: 0.75 },
    ]);

    // Ranker: scores 0.1..0.4 → mean 0.25; 2 of 4 clicked, 1 of 4 converted.
    expect(rk!.measures[0]).toMatchObject({ n: 4, 'mean(score)': expect.closeTo(0.25, 12), 'max(score)': 0.4 });
    expect(rk!.feedback).toEqual([expect.objectContaining({ requests: 4, clicks: 2, click_rate: 0.5, conversions: 1, conversion_rate: 0.25 })]);
  });

  it('splits by version and time bucket', async () => {
    const r = await summary(reads, { from: iso(T0), to: iso(T0 + 10 * MIN), filters: { model: 'clf' }, group_by: ['model_version'], step: '10m' });
    expect(r.models).toHaveLength(1);
    // v1 holds confidences 0.05..0.45 (all low), v2 0.55..0.95 (one low).
    expect(r.models[0]!.measures.map((m) => [m.bucket, m.model_version, m['below_rate(confidence, 0.6)']])).toEqual([
      [iso(T0), 'v1', 1],
      [iso(T0), 'v2', 0.2],
    ]);
    // v1: ham ×5; v2: ham ×1, spam ×4.
    expect(r.models[0]!.labels!.map((l) => [l.model_version, l.label, l.share])).toEqual([
      ['v1', 'ham', 1],
      ['v2', 'ham', 0.2],
      ['v2', 'spam', 0.8],
    ]);
  });

  it('answers bad input with field paths', async () => {
    await expect(summary(reads, { from: iso(T0), to: 'soon' })).rejects.toMatchObject({ code: 'invalid_argument', issues: [{ path: 'to' }] });
    await expect(summary(reads, { from: iso(T0 + MIN), to: iso(T0) })).rejects.toMatchObject({ code: 'invalid_argument' });
  });
});
