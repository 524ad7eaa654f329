/**
 * Cost in money: GPU time attributed to model × version × tenant by their share of execution time,
 * priced per GPU-hour, plus hosted models' token prices; per model, per tenant, per 1,000 requests
 * and per 1,000 tokens, with a trend over the window's steps.
 *
 * The method, per step (`stepMs`, buckets aligned to `from`) and per GPU:
 *
 * 1. A GPU is held for the whole step when it reported `gpu_utilization_ratio` in it (the last step
 *    is clipped to `to`). Its price is the first `gpuHour` entry whose `pool` and `gpuModel` (the
 *    `gpu_model` label of the GPU collector and of a DCGM scrape) match; none: unpriced.
 * 2. The GPU serves a unit: its node and replica when its readings carry a replica (one GPU per
 *    replica, as in the demo), else its node (every replica on it).
 * 3. The unit's execution time in the step is Σ `exec_ms` × `sample_weight` of every request on it
 *    (probes included: they use the GPU too). A slice's share is its own Σ over that. The GPU's held
 *    seconds and money are split by those shares.
 * 4. What no slice takes is unattributed, by reason: `idle` (no request ran on the unit in that
 *    step), `no_exec_ms` (requests ran but none carried `exec_ms`), `other` (probes, and traffic
 *    the request's filters leave out).
 *
 * Worked numbers: one GPU at 2.00 per hour held for a 60 s step = 0.0333; tenant a ran 300 ms of
 * exec time on its replica and tenant b 100 ms: a gets 45 GPU-s and 0.025, b 15 GPU-s and 0.00833.
 *
 * Token cost: hosted models' `tokens[model]` prices per 1 M input and output tokens times
 * Σ tokens × `sample_weight`. A model with no token price has token cost 0 (a self-hosted model
 * costs its GPU time).
 */
import { InferlensError, parseMeasure } from '../schema/index.ts';
import type { CostLineReply, CostReply, Filters, Measure, QueryRow, QuerySpec } from '../schema/index.ts';
import type { ResourceQuerySpec, ResourceRow } from '../store/index.ts';
import { checkRange } from './spec.ts';

/** Prices from the config (`cost`). */
export interface CostPrices {
  currency: string;
  /** Price of one GPU-hour; first match wins; an entry with neither field matches every GPU. */
  gpuHour: readonly { pool?: string | undefined; gpuModel?: string | undefined; price: number }[];
  /** Hosted models: price per 1 M input / output tokens, by model name. */
  tokens: Readonly<Record<string, { input: number; output: number }>>;
}

/** What a cost read takes (decoded from `POST /v1/cost` by `CostRequestSchema`). */
export interface CostRequest {
  fromMs: number;
  toMs: number;
  stepMs: number;
  filters: Filters;
}

/** The reads cost needs. */
export interface CostReads {
  aggregate(spec: QuerySpec): Promise<QueryRow[]>;
  resources(spec: ResourceQuerySpec): Promise<ResourceRow[]>;
}

/** Most groups one cost read may return: past it, the request asks for a larger step or filters. */
export const MAX_COST_GROUPS = 200_000;

/** The setting that unlocks money figures, as the reply and the view say it. */
export const COST_SETTING = 'cost.gpu_hour (price per GPU-hour by pool / GPU model) or cost.tokens (price per 1 M tokens by model) in the config file';

interface Usage {
  requests: number;
  input_tokens: number;
  output_tokens: number;
  exec_ms: number;
  gpu_seconds: number;
  gpu_cost: number;
  token_cost: number;
}

type CostLine = CostLineReply;

const measure = (name: string) => ({ name, measure: parseMeasure(name) as Measure });
const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : 0);
const str = (v: unknown) => (typeof v === 'string' ? v : null);
const unitKey = (node: string | null, replica: string | null) => JSON.stringify([node, replica]);

function emptyUsage(): Usage {
  return { requests: 0, input_tokens: 0, output_tokens: 0, exec_ms: 0, gpu_seconds: 0, gpu_cost: 0, token_cost: 0 };
}

function add(a: Usage, b: Partial<Usage>): void {
  for (const k of Object.keys(b) as (keyof Usage)[]) a[k] += b[k] ?? 0;
}

/** The price of one GPU-hour for a GPU, or null when no entry matches. */
export function gpuHourPrice(prices: CostPrices, pool: string | null, gpuModel: string | null): number | null {
  for (const p of prices.gpuHour) {
    if (p.pool !== undefined && p.pool !== pool) continue;
    if (p.gpuModel !== undefined && p.gpuModel !== gpuModel) continue;
    return p.price;
  }
  return null;
}

/** Cost of the window; see the module comment for the method. */
export async function costReport(reads: CostReads, prices: CostPrices, req: CostRequest): Promise<CostReply> {
  const { fromMs, toMs, stepMs } = req;
  checkRange(fromMs, toMs);
  const nBuckets = Math.ceil((toMs - fromMs) / stepMs);
  if (nBuckets > 10_000)
    throw new InferlensError('invalid_argument', `step: ${nBuckets} steps in the window, at most 10,000: use a larger step`, {
      issues: [{ path: 'step', message: 'at most 10,000 steps' }],
    });
  const priced = prices.gpuHour.length > 0 || Object.keys(prices.tokens).length > 0;
  const base = { fromMs, toMs, stepMs, limit: MAX_COST_GROUPS + 1 };
  const [slices, units, gpus] = await Promise.all([
    reads.aggregate({
      ...base,
      filters: req.filters,
      includeProbes: false,
      groupBy: ['node', 'replica', 'model', 'model_version', 'tenant'],
      measures: ['count', 'total(exec_ms)', 'total(input_tokens)', 'total(output_tokens)'].map(measure),
    }),
    // Every request on each unit (no filters, probes included): the denominator of the shares.
    reads.aggregate({ ...base, filters: {}, includeProbes: true, groupBy: ['node', 'replica'], measures: ['count', 'total(exec_ms)'].map(measure) }),
    reads.resources({ fromMs, toMs, stepMs, metrics: ['gpu_utilization_ratio'], filters: {}, groupBy: ['node', 'replica', 'gpu', 'pool', 'labels.gpu_model'] }),
  ]);
  if (slices.length > MAX_COST_GROUPS || units.length > MAX_COST_GROUPS || gpus.length > MAX_COST_GROUPS) {
    throw new InferlensError('invalid_argument', `more than ${MAX_COST_GROUPS} groups in the window: use a larger step, a shorter window or filters`);
  }

  // Execution time per (bucket, node, replica) and per (bucket, node) of all traffic.
  const byUnit = new Map<string, { requests: number; exec: number }>();
  const addUnit = (k: string, requests: number, exec: number) => {
    const cur = byUnit.get(k) ?? { requests: 0, exec: 0 };
    cur.requests += requests;
    cur.exec += exec;
    byUnit.set(k, cur);
  };
  for (const u of units) {
    const b = num(u['bucket']);
    addUnit(`${b}|${unitKey(str(u['node']), str(u['replica']))}`, num(u['count']), num(u['total(exec_ms)']));
    addUnit(`${b}|${unitKey(str(u['node']), null)}|node`, num(u['count']), num(u['total(exec_ms)']));
  }
  // The filtered slices on each unit, both ways.
  const slicesOn = new Map<string, QueryRow[]>();
  const push = (k: string, r: QueryRow) => {
    const list = slicesOn.get(k);
    if (list) list.push(r);
    else slicesOn.set(k, [r]);
  };
  for (const r of slices) {
    const b = num(r['bucket']);
    push(`${b}|${unitKey(str(r['node']), str(r['replica']))}`, r);
    push(`${b}|${unitKey(str(r['node']), null)}|node`, r);
  }

  const sliceKey = (r: QueryRow) => JSON.stringify([str(r['model']), str(r['model_version']), str(r['tenant'])]);
  const bucketIndex = (b: number) => Math.round((b - fromMs) / stepMs);
  // Per slice: its usage in total and per bucket.
  const sliceUsage = new Map<string, { usage: Usage; perBucket: Map<number, Usage> }>();
  const usageOf = (r: QueryRow) => {
    const k = sliceKey(r);
    let s = sliceUsage.get(k);
    if (!s) sliceUsage.set(k, (s = { usage: emptyUsage(), perBucket: new Map() }));
    return s;
  };
  const addSlice = (r: QueryRow, u: Partial<Usage>) => {
    const s = usageOf(r);
    add(s.usage, u);
    const i = bucketIndex(num(r['bucket']));
    const pb = s.perBucket.get(i) ?? emptyUsage();
    add(pb, u);
    s.perBucket.set(i, pb);
  };

  // Requests, tokens and token money of each slice.
  for (const r of slices) {
    const input = num(r['total(input_tokens)']);
    const output = num(r['total(output_tokens)']);
    const tp = prices.tokens[str(r['model']) ?? ''];
    addSlice(r, {
      requests: num(r['count']),
      input_tokens: input,
      output_tokens: output,
      exec_ms: num(r['total(exec_ms)']),
      token_cost: tp ? (input / 1e6) * tp.input + (output / 1e6) * tp.output : 0,
    });
  }

  // GPU time, split by execution-time share.
  const unattributed = { idle: { s: 0, c: 0 }, no_exec_ms: { s: 0, c: 0 }, other: { s: 0, c: 0 } };
  const nodes = new Map<string, { gpus: Set<string>; s: number; busy: number; c: number; sim: boolean }>();
  const unpriced = new Map<string, { pool: string | null; gpu_model: string | null; s: number }>();
  for (const g of gpus) {
    const b = g.bucketMs;
    const heldS = (Math.min(b + stepMs, toMs) - Math.max(b, fromMs)) / 1000;
    if (!(heldS > 0)) continue;
    const node = g.node ?? null;
    const replica = g.replica ?? null;
    const gpuModel = g.labels?.['gpu_model'] ?? null;
    const price = gpuHourPrice(prices, g.pool ?? null, gpuModel);
    const money = price === null ? 0 : (heldS / 3600) * price;
    if (price === null) {
      const k = JSON.stringify([g.pool ?? null, gpuModel]);
      const cur = unpriced.get(k) ?? { pool: g.pool ?? null, gpu_model: gpuModel, s: 0 };
      cur.s += heldS;
      unpriced.set(k, cur);
    }
    const nk = node ?? '';
    const n = nodes.get(nk) ?? { gpus: new Set<string>(), s: 0, busy: 0, c: 0, sim: false };
    n.gpus.add(JSON.stringify([replica, g.gpu ?? null]));
    n.s += heldS;
    n.busy += heldS * Math.min(1, Math.max(0, g.avg));
    n.c += money;
    n.sim ||= g.simulated;
    nodes.set(nk, n);

    const k = replica === null ? `${b}|${unitKey(node, null)}|node` : `${b}|${unitKey(node, replica)}`;
    const unit = byUnit.get(k);
    if (!unit || unit.requests === 0) {
      unattributed.idle.s += heldS;
      unattributed.idle.c += money;
      continue;
    }
    if (!(unit.exec > 0)) {
      unattributed.no_exec_ms.s += heldS;
      unattributed.no_exec_ms.c += money;
      continue;
    }
    let taken = 0;
    for (const r of slicesOn.get(k) ?? []) {
      const share = num(r['total(exec_ms)']) / unit.exec;
      if (!(share > 0)) continue;
      taken += share;
      addSlice(r, { gpu_seconds: heldS * share, gpu_cost: money * share });
    }
    const rest = Math.max(0, 1 - taken);
    unattributed.other.s += heldS * rest;
    unattributed.other.c += money * rest;
  }

  // Roll slices up into models, tenants and the total.
  const half = Math.ceil(nBuckets / 2);
  type Acc = { usage: Usage; perBucket: Usage[] };
  const newAcc = (): Acc => ({ usage: emptyUsage(), perBucket: Array.from({ length: nBuckets }, emptyUsage) });
  const merge = (acc: Acc, s: { usage: Usage; perBucket: Map<number, Usage> }) => {
    add(acc.usage, s.usage);
    for (const [i, u] of s.perBucket) if (acc.perBucket[i]) add(acc.perBucket[i]!, u);
  };
  const money = (u: Usage) => (priced ? u.gpu_cost + u.token_cost : null);
  const per1k = (cost: number | null, n: number) => (cost !== null && n > 0 ? (cost / n) * 1000 : null);
  const line = (acc: Acc): CostLine => {
    const u = acc.usage;
    const cost = money(u);
    const halves = [acc.perBucket.slice(0, half), acc.perBucket.slice(half)].map((part) => {
      const sum = emptyUsage();
      for (const p of part) add(sum, p);
      return per1k(priced ? sum.gpu_cost + sum.token_cost : sum.gpu_seconds, sum.requests);
    });
    return {
      requests: u.requests,
      input_tokens: u.input_tokens,
      output_tokens: u.output_tokens,
      exec_ms: u.exec_ms,
      gpu_seconds: u.gpu_seconds,
      gpu_cost: priced ? u.gpu_cost : null,
      token_cost: priced ? u.token_cost : null,
      cost,
      cost_per_1k_requests: per1k(cost, u.requests),
      cost_per_1k_tokens: per1k(cost, u.input_tokens + u.output_tokens),
      trend: {
        cost: acc.perBucket.map((p) => (priced ? p.gpu_cost + p.token_cost : p.gpu_seconds)),
        per_1k_requests: acc.perBucket.map((p) => per1k(priced ? p.gpu_cost + p.token_cost : p.gpu_seconds, p.requests)),
      },
      change: halves[0] != null && halves[1] != null && halves[0] > 0 ? halves[1] / halves[0] - 1 : null,
    };
  };
  const group = <K extends string>(keys: K[], pick: (k: [string | null, string | null, string | null]) => (string | null)[]) => {
    const accs = new Map<string, { key: (string | null)[]; acc: Acc }>();
    for (const [k, s] of sliceUsage) {
      const key = pick(JSON.parse(k) as [string | null, string | null, string | null]);
      const id = JSON.stringify(key);
      let a = accs.get(id);
      if (!a) accs.set(id, (a = { key, acc: newAcc() }));
      merge(a.acc, s);
    }
    const rank = (l: CostLine) => l.cost ?? l.gpu_seconds;
    return [...accs.values()]
      .map(({ key, acc }) => ({ ...(Object.fromEntries(keys.map((name, i) => [name, key[i] ?? null])) as Record<K, string | null>), ...line(acc) }))
      .sort((a, b) => rank(b) - rank(a) || b.requests - a.requests);
  };
  const total = newAcc();
  for (const s of sliceUsage.values()) merge(total, s);
  const m = (x: number) => (priced ? x : null);

  return {
    currency: priced ? prices.currency : null,
    priced,
    unlock: priced ? null : COST_SETTING,
    step_ms: stepMs,
    buckets: Array.from({ length: nBuckets }, (_, i) => new Date(fromMs + i * stepMs).toISOString()),
    total: line(total),
    by_model: group(['model'], (k) => [k[0]]),
    by_tenant: group(['tenant'], (k) => [k[2]]),
    by_slice: group(['model', 'model_version', 'tenant'], (k) => k),
    unattributed: (['idle', 'no_exec_ms', 'other'] as const).map((reason) => ({
      reason,
      gpu_seconds: unattributed[reason].s,
      cost: m(unattributed[reason].c),
    })),
    nodes: [...nodes.entries()]
      .map(([node, n]) => ({ node, gpus: n.gpus.size, gpu_seconds: n.s, busy_gpu_seconds: n.busy, cost: m(n.c), simulated: n.sim }))
      .sort((a, b) => b.gpu_seconds - a.gpu_seconds),
    unpriced: priced ? [...unpriced.values()].map((u) => ({ pool: u.pool, gpu_model: u.gpu_model, gpu_seconds: u.s })) : [],
  };
}
