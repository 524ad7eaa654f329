/**
 * What kind of model a model is, which decides the quality measures shown for it. A model's type
 * is declared in config; otherwise it is inferred from the result fields its events carry:
 * generative when it reports output_tokens, ttft_ms, tpot_ms, finish_reason or refused;
 * classifier when it reports label or confidence; ranker when it reports only a score.
 * (Generative is checked first: an LLM may also carry a label, a classifier never has TTFT.)
 */
import type { Filters, QueryRow } from '../schema/index.ts';
import type { QualityReads } from './reads.ts';
import { specOf } from './reads.ts';

export const MODEL_TYPES = ['classifier', 'generative', 'ranker'] as const;
export type ModelType = (typeof MODEL_TYPES)[number];

/** The fields whose presence decides the type, in the order they are checked. */
const GENERATIVE_FIELDS = ['output_tokens', 'ttft_ms', 'tpot_ms', 'finish_reason', 'refused'] as const;
const CLASSIFIER_FIELDS = ['label', 'confidence'] as const;
const RANKER_FIELDS = ['score'] as const;

export interface ModelTypeInfo {
  model: string;
  type: ModelType | 'unknown';
  source: 'declared' | 'inferred';
  /** Result fields seen in the window (what the inference rests on). */
  fields: string[];
  /** Stored rows of this model in the window. */
  n: number;
}

/** The type implied by the result fields present; 'unknown' when none of them is. */
export function inferModelType(present: ReadonlySet<string>): ModelType | 'unknown' {
  if (GENERATIVE_FIELDS.some((f) => present.has(f))) return 'generative';
  if (CLASSIFIER_FIELDS.some((f) => present.has(f))) return 'classifier';
  if (RANKER_FIELDS.some((f) => present.has(f))) return 'ranker';
  return 'unknown';
}

/** Most models one summary covers (most active first). */
export const MAX_MODELS = 50;

/**
 * The models in the window with their type. Presence of a numeric field is read as a non-null
 * max(); of a categorical field as a non-null group; of `refused` as a non-null refused_rate.
 */
export async function detectModelTypes(
  reads: QualityReads,
  fromMs: number,
  toMs: number,
  filters: Filters,
  declared: Readonly<Record<string, ModelType>>,
): Promise<ModelTypeInfo[]> {
  const numeric = ['output_tokens', 'ttft_ms', 'tpot_ms', 'confidence', 'score'] as const;
  const base = await reads.aggregate(specOf(fromMs, toMs, filters, ['n', ...numeric.map((f) => `max(${f})`), 'refused_rate'], { groupBy: ['model'] }));
  const labels = await reads.aggregate(specOf(fromMs, toMs, filters, ['n'], { groupBy: ['model', 'label'] }));
  const reasons = await reads.aggregate(specOf(fromMs, toMs, filters, ['n'], { groupBy: ['model', 'finish_reason'] }));
  const present = new Map<string, Set<string>>();
  const mark = (model: unknown, field: string) => {
    if (typeof model !== 'string') return;
    let s = present.get(model);
    if (!s) present.set(model, (s = new Set()));
    s.add(field);
  };
  for (const r of base) {
    for (const f of numeric) if (r[`max(${f})`] != null) mark(r.model, f);
    if (r.refused_rate != null) mark(r.model, 'refused');
  }
  for (const r of labels) if (r.label != null) mark(r.model, 'label');
  for (const r of reasons) if (r.finish_reason != null) mark(r.model, 'finish_reason');
  return base
    .filter((r): r is QueryRow & { model: string } => typeof r.model === 'string')
    .sort((a, b) => Number(b.n) - Number(a.n) || a.model.localeCompare(b.model))
    .slice(0, MAX_MODELS)
    .map((r) => {
      const fields = [...(present.get(r.model) ?? [])].sort();
      const d = declared[r.model];
      return { model: r.model, type: d ?? inferModelType(new Set(fields)), source: d ? 'declared' : 'inferred', fields, n: Number(r.n) };
    });
}
