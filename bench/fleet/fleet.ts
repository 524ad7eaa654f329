// Over 400 lines on purpose: one room: the fleet drawn once from the seed; its parts draw from one random stream in a fixed order, so splitting them would change every seed's fleet.
/**
 * The fleet's shape, drawn once from the seed: models of three types with their own latency
 * scales, versions with arbitrarily named routes, Zipf tenants, entries, replicas on GPUs on
 * nodes, capacities, quotas, and the standing nuisance (bad-input tenants, tenant output mixes).
 *
 * Nothing here depends on the run's length or on incidents: a 3-hour run is a prefix of a 5-hour
 * run with the same seed and scale, and the clean twin has the same fleet.
 */
import type { ErrorType } from '../../src/schema/index.ts';
import type { Random } from './random.ts';
import { STREAM, cumulative, int, lognormal, normal, perturb, pick, shuffle, stream, tag, uniform } from './random.ts';

export type ModelType = 'classifier' | 'ranker' | 'generative';
export type VersionRole = 'stable' | 'canary' | 'pinned';

export interface FleetShape {
  /** Models per type (default 6 classifiers, 5 rankers, 6 generative). */
  classifiers: number;
  rankers: number;
  generative: number;
  /** Tenants (default 60). */
  tenants: number;
  /** Entries (default 4, at least 3, at most 5). */
  entries: number;
}

export const DEFAULT_SHAPE: FleetShape = { classifiers: 6, rankers: 5, generative: 6, tenants: 60, entries: 4 };

/** Mean requests/s of the whole fleet at scale 1 (user traffic, probes excluded). */
export const BASE_RATE_PER_S = 40;

export interface Pool {
  name: string;
  gpuModel: string;
  gpuMemoryBytes: number;
  gpusPerNode: number;
}

const GIB = 1024 ** 3;
export const POOLS: Record<ModelType, Pool> = {
  classifier: { name: 'l4-24g', gpuModel: 'NVIDIA L4', gpuMemoryBytes: 24 * GIB, gpusPerNode: 4 },
  ranker: { name: 'a10g-24g', gpuModel: 'NVIDIA A10G', gpuMemoryBytes: 24 * GIB, gpusPerNode: 4 },
  generative: { name: 'h100-80g', gpuModel: 'NVIDIA H100 80GB HBM3', gpuMemoryBytes: 80 * GIB, gpusPerNode: 8 },
};

export interface Replica {
  name: string;
  model: number;
  version: number;
  node: string;
  gpu: string;
  gpuUuid: string;
  pool: Pool;
  /** Bytes held by weights and runtime whatever the load. */
  baseMemoryBytes: number;
  /** Bytes that follow the load (activations; the KV cache on generative), at full load. */
  loadMemoryBytes: number;
  /** Restarts before the run began (the counter's starting value). */
  restartsBefore: number;
}

export interface Version {
  name: string;
  role: VersionRole;
  /** The route rule that sends traffic here: an arbitrary name, never "canary" or "default". */
  route: string;
  /** Canary: the share of unpinned requests routed here; others 0. */
  canaryShare: number;
  /** Multiplies every model-side latency (exec, prefill, tpot). */
  latencyFactor: number;
  errorFactor: number;
  replicas: number[];
  /** Requests/s one replica serves at utilisation 1 (at scale 1). */
  capacityPerReplica: number;
  /** Utilisation at the version's daily mean load: where its queue sits at the model's `queueMs`. */
  typicalUtilisation: number;
  /** Classifier: this version's label mix shift (log-weights added to the tenant's mix). */
  labelShift: number[];
  confidenceShift: number;
  scoreShift: number;
  outputFactor: number;
  refusalFactor: number;
}

export interface TenantModel {
  tenant: number;
  /** Share of the model's traffic at the tenant's and model's mean load (sums to 1 per model). */
  weight: number;
  /** Requests/s the tenant may send this model before `rate_limited` (at scale 1; scaled). */
  quotaPerS: number;
  /** Extra bad_input error rate (most pairs 0; a few tenants persistently send bad input). */
  badInputRate: number;
  /** Classifier: the tenant's label probabilities. */
  labelMix: number[];
  scoreOffset: number;
  outputFactor: number;
  refusalFactor: number;
  formatFailFactor: number;
  /** Version index the tenant is pinned to, or -1. */
  pinnedVersion: number;
}

export interface Model {
  name: string;
  type: ModelType;
  pool: Pool;
  serviceVersion: string;
  /** Share of the fleet's mean traffic. */
  share: number;
  peakHourUtc: number;
  diurnalAmplitude: number;
  baseErrorRate: number;
  errorMix: { type: ErrorType; weight: number }[];
  errorMixCum: Float64Array;
  timeoutMs: number;
  /** Queue median at the version's typical utilisation (the queue model scales it with load). */
  queueMs: number;
  batchMs: number;
  execMs: number;
  execSigma: number;
  postMs: number;
  maxBatch: number;
  inputTokens: number;
  // classifier
  labels: string[];
  /** The model's label probabilities before tenant and version mixes (what golden probes see). */
  labelMix: number[];
  confidenceLogit: number;
  // ranker
  items: number;
  scoreMean: number;
  scoreSd: number;
  emptyRate: number;
  // generative
  prefillMs: number;
  tpotMs: number;
  outputTokens: number;
  outputSigma: number;
  maxTokens: number;
  refusalRate: number;
  formatFailRate: number;
  versions: Version[];
  tenants: TenantModel[];
  /** Seconds of work a request waits at most in the queue before it is rejected (overload only). */
  maxQueueS: number;
  /** 1 / the daily mean of (model day × tenants' days): keeps the model's mean load at its share. */
  rateNorm: number;
}

export interface Tenant {
  name: string;
  tier: 'premium' | 'standard' | 'free';
  /** Zipf weight (rank⁻¹·¹). */
  weight: number;
  peakHourUtc: number;
  diurnalAmplitude: number;
  entryCum: Float64Array;
  entries: number[];
}

export interface Entry {
  name: string;
  ingressMs: number;
  ingressSigma: number;
  /** Multiplies input sizes (batch jobs send longer inputs). */
  inputFactor: number;
  /** service_tier override (the batch entry), else the tenant's tier. */
  tier: string | null;
}

export interface Node {
  name: string;
  pool: Pool;
  replicas: number[];
}

export interface Fleet {
  seed: number;
  scale: number;
  models: Model[];
  tenants: Tenant[];
  entries: Entry[];
  replicas: Replica[];
  nodes: Node[];
  /** Fleet-wide load factor on a 10-minute grid over the day (see `fleetLoad`). */
  loadShape: Float64Array;
}

/** Steps of the day grid `loadShape` is kept on (10 minutes). */
const DAY_STEPS = 144;

/** The fleet-wide load factor at an hour of day (linear between the 10-minute grid points). */
export function fleetLoad(fleet: Fleet, hourUtc: number): number {
  const x = (hourUtc / 24) * DAY_STEPS;
  const k = Math.min(DAY_STEPS - 1, Math.floor(x));
  const f = x - k;
  return fleet.loadShape[k]! * (1 - f) + fleet.loadShape[k + 1]! * f;
}

const CLASSIFIER_NAMES = [
  'intent-router',
  'toxicity-guard',
  'spam-filter',
  'lang-detect',
  'sentiment',
  'fraud-check',
  'doc-type',
  'pii-detector',
  'topic-tagger',
  'nsfw-image',
];
const RANKER_NAMES = ['search-rerank', 'feed-ranker', 'ads-ctr', 'product-recs', 'news-rank', 'job-match', 'similar-items', 'query-suggest'];
const GENERATIVE_NAMES = [
  'chat-assistant',
  'summarizer',
  'code-helper',
  'support-agent',
  'sql-writer',
  'email-drafter',
  'translate-llm',
  'doc-qa',
  'title-writer',
];
const LABEL_SETS = [
  ['negative', 'neutral', 'positive'],
  ['ham', 'spam', 'phishing', 'malware'],
  ['billing', 'shipping', 'returns', 'account', 'other'],
  ['safe', 'hate', 'violence', 'sexual', 'self_harm', 'harassment'],
  ['en', 'de', 'fr', 'es', 'other'],
  ['low', 'medium', 'high'],
  ['invoice', 'receipt', 'contract', 'id_card', 'letter'],
  ['legit', 'suspicious', 'fraud'],
];
const TENANT_A = [
  'acme',
  'blue',
  'north',
  'quiet',
  'rapid',
  'silver',
  'urban',
  'bright',
  'cedar',
  'delta',
  'ember',
  'frost',
  'golden',
  'harbor',
  'iron',
  'jade',
  'lunar',
  'maple',
  'nova',
  'orbit',
];
const TENANT_B = [
  'labs',
  'retail',
  'health',
  'bank',
  'media',
  'games',
  'travel',
  'foods',
  'legal',
  'cloud',
  'works',
  'mobile',
  'learn',
  'logix',
  'motors',
  'energy',
];
const ROUTE_WORDS = ['lane', 'track', 'path', 'split', 'flow', 'ring', 'arm', 'slot', 'cell', 'zone', 'wave', 'line'];
const ENTRY_POOL: Omit<Entry, 'ingressMs'>[] = [
  { name: 'public-api', ingressSigma: 0.35, inputFactor: 1, tier: null },
  { name: 'web-bff', ingressSigma: 0.4, inputFactor: 0.8, tier: null },
  { name: 'partner-gateway', ingressSigma: 0.45, inputFactor: 1.1, tier: null },
  { name: 'batch-jobs', ingressSigma: 0.3, inputFactor: 1.6, tier: 'batch' },
  { name: 'mobile-edge', ingressSigma: 0.5, inputFactor: 0.7, tier: null },
];
const ENTRY_INGRESS_MS: Record<string, [number, number]> = {
  'public-api': [3, 7],
  'web-bff': [8, 20],
  'partner-gateway': [20, 45],
  'batch-jobs': [1, 2.5],
  'mobile-edge': [25, 60],
};

const ERROR_MIX: Record<ModelType, [ErrorType, number][]> = {
  classifier: [
    ['bad_input', 0.35],
    ['internal', 0.25],
    ['dependency_timeout', 0.15],
    ['resource_exhausted', 0.05],
    ['replica_fault', 0.08],
    ['model_load', 0.04],
    ['other', 0.08],
  ],
  ranker: [
    ['dependency_timeout', 0.35],
    ['internal', 0.25],
    ['bad_input', 0.15],
    ['resource_exhausted', 0.08],
    ['replica_fault', 0.07],
    ['model_load', 0.03],
    ['other', 0.07],
  ],
  generative: [
    ['resource_exhausted', 0.3],
    ['internal', 0.2],
    ['bad_input', 0.2],
    ['dependency_timeout', 0.1],
    ['replica_fault', 0.08],
    ['model_load', 0.04],
    ['other', 0.08],
  ],
};

function versionName(r: Random, style: number, age: number, model: string): string {
  switch (style) {
    case 0:
      return `v${3 + age}.${int(r, 0, 9)}.${int(r, 0, 20)}`;
    case 1:
      return `2026-0${1 + Math.min(4, age)}-${String(int(r, 10, 28))}`;
    case 2:
      return `r${40 + age * int(r, 2, 6)}`;
    default:
      return `${model.split('-')[0]}-ft${age + 1}-${tag(r, 3)}`;
  }
}

function routeName(r: Random, taken: Set<string>): string {
  for (;;) {
    const n = r() < 0.5 ? `${pick(r, ROUTE_WORDS)}-${tag(r, 4)}` : `rt-${tag(r, 6)}`;
    if (!taken.has(n)) {
      taken.add(n);
      return n;
    }
  }
}

/** The shares of `n` models: geometric from 25 % down (the largest ~25 %, the smallest ~0.25 % at n = 17), jittered. */
function modelShares(r: Random, n: number): number[] {
  // Solve (1 − e^{−k}) / (1 − e^{−kn}) = 0.25 for k by bisection: the top share of a geometric series.
  let lo = 1e-6;
  let hi = 5;
  for (let i = 0; i < 60; i++) {
    const k = (lo + hi) / 2;
    const top = (1 - Math.exp(-k)) / (1 - Math.exp(-k * n));
    if (top > 0.25) hi = k;
    else lo = k;
  }
  const k = (lo + hi) / 2;
  const w = Array.from({ length: n }, (_, i) => Math.exp(-k * i) * (i === 0 ? 1 : Math.exp(0.12 * normal(r))));
  const rest = w.slice(1).reduce((a, b) => a + b, 0);
  // Keep the top at exactly 25 %: scale the others to fill 75 %.
  return w.map((x, i) => (i === 0 ? 0.25 : (0.75 * x) / rest));
}

/** Expected diurnal factor 1 + A·cos(2π(h − peak)/24) at hour-of-day h (UTC, fractional). */
export function diurnal(hourUtc: number, peakHourUtc: number, amplitude: number): number {
  return 1 + amplitude * Math.cos((2 * Math.PI * (hourUtc - peakHourUtc)) / 24);
}

/**
 * Each version's peak over the day of its expected load, per unit of BASE_RATE_PER_S × the model's
 * share (the same units as the model's day curve × the fleet's shape): pinned tenants on their
 * version, the others split by the canary share.
 */
function versionPeaks(m: Model, tenants: readonly Tenant[], loadShape: Float64Array): number[] {
  const peaks = m.versions.map(() => 0);
  const canary = m.versions[1]!.canaryShare;
  for (let k = 0; k <= DAY_STEPS; k++) {
    const h = (k * 24) / DAY_STEPS;
    const day = m.rateNorm * diurnal(h, m.peakHourUtc, m.diurnalAmplitude) * loadShape[k]!;
    const at = m.versions.map(() => 0);
    for (const tm of m.tenants) {
      const t = tenants[tm.tenant]!;
      const x = tm.weight * diurnal(h, t.peakHourUtc, t.diurnalAmplitude) * day;
      if (tm.pinnedVersion >= 0) at[tm.pinnedVersion]! += x;
      else {
        at[0]! += x * (1 - canary);
        at[1]! += x * canary;
      }
    }
    at.forEach((x, vi) => (peaks[vi] = Math.max(peaks[vi]!, x)));
  }
  return peaks;
}

/** Builds the fleet of a seed. */
export function buildFleet(seed: number, scale: number, shape: FleetShape = DEFAULT_SHAPE): Fleet {
  const r = stream(seed, STREAM.fleet);
  const nEntries = Math.min(5, Math.max(3, shape.entries));

  // Entries: the first three always (public, web, partner); the batch path when there are four.
  const entryOrder = [0, 1, 2, 3, 4].slice(0, nEntries);
  const entries: Entry[] = entryOrder.map((i) => {
    const e = ENTRY_POOL[i]!;
    const [lo, hi] = ENTRY_INGRESS_MS[e.name]!;
    return { ...e, ingressMs: uniform(r, lo, hi) };
  });

  // Tenants: Zipf weights, tiers by rank (with some mixing), own time zone, one or two entries.
  const tenantNames = new Set<string>();
  while (tenantNames.size < shape.tenants) tenantNames.add(`${pick(r, TENANT_A)}-${pick(r, TENANT_B)}`);
  const tenants: Tenant[] = [...tenantNames].map((name, i) => {
    const rank = i + 1;
    const tier: Tenant['tier'] = rank <= shape.tenants / 6 ? 'premium' : rank <= shape.tenants * 0.65 || r() < 0.2 ? 'standard' : 'free';
    const nE = r() < 0.35 ? 2 : 1;
    const chosen = shuffle(
      r,
      entries.map((_, j) => j),
    ).slice(0, nE);
    // The batch entry is used by a minority: swap it out for most tenants.
    const usable = chosen.map((j) => (entries[j]!.name === 'batch-jobs' && r() < 0.6 ? 0 : j));
    const uniq = [...new Set(usable)];
    const ew = uniq.map((_, k) => (k === 0 ? 1 : uniform(r, 0.15, 0.6)));
    return {
      name,
      tier,
      weight: 1 / rank ** 1.1,
      peakHourUtc: uniform(r, 0, 24),
      diurnalAmplitude: uniform(r, 0.1, 0.5),
      entries: uniq,
      entryCum: cumulative(ew),
    };
  });

  // Models: names, types, shares (rank order shuffled across types), peak hours stratified over
  // the day so the fleet's total stays near its mean while each model follows its own day.
  const types: ModelType[] = [
    ...Array<ModelType>(shape.classifiers).fill('classifier'),
    ...Array<ModelType>(shape.rankers).fill('ranker'),
    ...Array<ModelType>(shape.generative).fill('generative'),
  ];
  const n = types.length;
  const names = {
    classifier: shuffle(r, CLASSIFIER_NAMES),
    ranker: shuffle(r, RANKER_NAMES),
    generative: shuffle(r, GENERATIVE_NAMES),
  };
  const used = { classifier: 0, ranker: 0, generative: 0 };
  const nameFor = (t: ModelType): string => {
    const k = used[t]++;
    const list = names[t];
    const base = list[k % list.length]!;
    return k < list.length ? base : `${base}-${Math.floor(k / list.length) + 1}`;
  };
  const shares = modelShares(r, n);
  const shareOrder = shuffle(r, shares);
  const peakOrder = shuffle(
    r,
    Array.from({ length: n }, (_, i) => i),
  );
  const errOrder = shuffle(
    r,
    Array.from({ length: n }, (_, i) => i),
  );
  const routeTaken = new Set<string>();

  const models: Model[] = types.map((type, i) => {
    const name = nameFor(type);
    const pool = POOLS[type];
    const mixBase = ERROR_MIX[type];
    const mixW = perturb(
      r,
      mixBase.map(([, w]) => w),
      0.4,
    );
    const errorMix = mixBase.map(([t], k) => ({ type: t, weight: mixW[k]! }));
    // Base error rates stratified on a log scale over 0.1 %–2 %.
    const baseErrorRate = Math.exp(Math.log(0.001) + ((errOrder[i]! + r()) / n) * Math.log(20));
    const labels = type === 'classifier' ? pick(r, LABEL_SETS).slice(0, int(r, 3, 6)) : [];
    const outputTokens = type === 'generative' ? uniform(r, 80, 400) : 0;
    const outputSigma = 0.8;
    return {
      name,
      type,
      pool,
      serviceVersion: type === 'generative' ? pick(r, ['vllm-0.6.4', 'vllm-0.7.2', 'tgi-2.4.1']) : pick(r, ['triton-24.08', 'triton-24.10', 'torchserve-0.12']),
      share: shareOrder[i]!,
      peakHourUtc: ((peakOrder[i]! + r()) / n) * 24,
      diurnalAmplitude: uniform(r, 0.2, 0.45),
      baseErrorRate,
      errorMix,
      errorMixCum: cumulative(errorMix.map((e) => e.weight)),
      timeoutMs: type === 'classifier' ? 2_000 : type === 'ranker' ? 3_000 : 90_000,
      queueMs: type === 'classifier' ? uniform(r, 1, 6) : type === 'ranker' ? uniform(r, 3, 15) : uniform(r, 200, 600),
      batchMs: type === 'classifier' ? uniform(r, 0.5, 3) : type === 'ranker' ? uniform(r, 1, 6) : uniform(r, 5, 30),
      execMs: type === 'classifier' ? uniform(r, 2, 8) : type === 'ranker' ? uniform(r, 15, 60) : 0,
      execSigma: type === 'classifier' ? 0.3 : 0.35,
      postMs: type === 'classifier' ? uniform(r, 0.2, 1.5) : type === 'ranker' ? uniform(r, 1, 5) : uniform(r, 2, 20),
      maxBatch: type === 'classifier' ? 32 : type === 'ranker' ? 16 : 64,
      inputTokens: type === 'classifier' ? uniform(r, 20, 200) : type === 'ranker' ? uniform(r, 5, 30) : uniform(r, 200, 1500),
      labels,
      labelMix: [],
      confidenceLogit: uniform(r, 1.8, 3),
      items: uniform(r, 10, 50),
      scoreMean: uniform(r, -1, 3),
      scoreSd: uniform(r, 0.5, 1.5),
      emptyRate: type === 'ranker' ? uniform(r, 0.005, 0.02) : type === 'generative' ? uniform(r, 0.002, 0.01) : 0,
      prefillMs: type === 'generative' ? uniform(r, 100, 600) : 0,
      tpotMs: type === 'generative' ? uniform(r, 15, 60) : 0,
      outputTokens,
      outputSigma,
      // ~3 % of generations hit the cap (e^{1.88σ} above the median) and stop with "length".
      maxTokens: type === 'generative' ? Math.round((outputTokens * Math.exp(1.88 * outputSigma)) / 64) * 64 : 0,
      refusalRate: type === 'generative' ? uniform(r, 0.004, 0.02) : 0,
      formatFailRate: type === 'generative' ? uniform(r, 0.003, 0.015) : 0,
      versions: [],
      tenants: [],
      maxQueueS: type === 'generative' ? 20 : type === 'ranker' ? 2 : 1,
      rateNorm: 1,
    };
  });

  // A generative model's deadline leaves room for its longest normal answer (max tokens at a slow
  // token time): timeouts come from stalls and incidents, not from ordinary long answers.
  for (const m of models) {
    if (m.type === 'generative') m.timeoutMs = Math.max(60_000, Math.ceil((3 * m.prefillMs + 1.8 * m.maxTokens * m.tpotMs + 10_000) / 10_000) * 10_000);
  }

  // Tenant ↔ model: big tenants use more models; popular models are used by more tenants.
  const modelPop = cumulative(models.map((m) => Math.sqrt(m.share)));
  const tenantModels: Set<number>[] = tenants.map((t) => {
    const k = Math.max(1, Math.min(10, Math.round(1 + 7 * (t.weight / tenants[0]!.weight) ** 0.35 + normal(r))));
    const s = new Set<number>();
    let guard = 0;
    while (s.size < k && guard++ < 200) {
      const x = r() * (modelPop[modelPop.length - 1] as number);
      let mi = 0;
      while ((modelPop[mi] as number) <= x) mi++;
      s.add(mi);
    }
    return s;
  });
  for (let mi = 0; mi < n; mi++) {
    let users = tenantModels.filter((s) => s.has(mi)).length;
    while (users < 5) {
      const ti = Math.floor(r() * tenants.length);
      if (!tenantModels[ti]!.has(mi)) {
        tenantModels[ti]!.add(mi);
        users++;
      }
    }
  }

  models.forEach((m, mi) => {
    const baseMix =
      m.type === 'classifier'
        ? perturb(
            r,
            m.labels.map((_, k) => 1 / (k + 1.5)),
            0.5,
          )
        : [];
    m.labelMix = baseMix;
    const ts = tenants.map((_, ti) => ti).filter((ti) => tenantModels[ti]!.has(mi));
    // Zipf weight damped (^0.6): a model has a few big tenants, not one that owns it.
    const raw = ts.map((ti) => tenants[ti]!.weight ** 0.6 * lognormal(r, 1, 0.9));
    const sum = raw.reduce((a, b) => a + b, 0);
    m.tenants = ts.map((ti, k) => {
      const tier = tenants[ti]!.tier;
      const weight = raw[k]! / sum;
      const quotaFactor = tier === 'premium' ? uniform(r, 5, 10) : tier === 'standard' ? uniform(r, 2.5, 5) : uniform(r, 1.6, 2.6);
      // The tenant's own peak rate on this model, times its quota factor; at least 0.1/s.
      const peak = BASE_RATE_PER_S * m.share * weight * (1 + m.diurnalAmplitude) * (1 + tenants[ti]!.diurnalAmplitude);
      return {
        tenant: ti,
        weight,
        quotaPerS: Math.max(0.1, peak * quotaFactor),
        badInputRate: 0,
        labelMix: m.type === 'classifier' ? perturb(r, baseMix, 0.55) : [],
        scoreOffset: 0.3 * m.scoreSd * normal(r),
        outputFactor: lognormal(r, 1, 0.3),
        refusalFactor: lognormal(r, 1, 0.5),
        formatFailFactor: lognormal(r, 1, 0.5),
        pinnedVersion: -1,
      };
    });
  });

  // A few tenants persistently send bad input to some models: 2–8 % extra bad_input errors.
  const nBad = int(r, 4, 6);
  for (let i = 0; i < nBad; i++) {
    const m = pick(r, models);
    const tm = pick(r, m.tenants);
    tm.badInputRate = uniform(r, 0.02, 0.08);
  }

  // Each model's day × its tenants' days on a 10-minute grid, normalised to a daily mean of 1
  // (so the model's share holds on average). The fleet's total would then still swing with the
  // few largest models; `loadShape` divides that out and puts back a gentle fleet-wide day
  // (±8 %), so the fleet carries its mean rate at any hour while each model keeps its own day.
  const dayCurves = models.map((m) => {
    const curve = new Float64Array(DAY_STEPS + 1);
    for (let k = 0; k <= DAY_STEPS; k++) {
      const h = (k * 24) / DAY_STEPS;
      let s = 0;
      for (const tm of m.tenants) {
        const t = tenants[tm.tenant]!;
        s += tm.weight * diurnal(h, t.peakHourUtc, t.diurnalAmplitude);
      }
      curve[k] = s * diurnal(h, m.peakHourUtc, m.diurnalAmplitude);
    }
    let sum = 0;
    for (let k = 0; k < DAY_STEPS; k++) sum += curve[k]!;
    m.rateNorm = DAY_STEPS / sum;
    return curve.map((x) => x * m.rateNorm);
  });
  const fleetPeak = uniform(r, 0, 24);
  const loadShape = new Float64Array(DAY_STEPS + 1);
  for (let k = 0; k <= DAY_STEPS; k++) {
    let total = 0;
    models.forEach((m, mi) => (total += m.share * dayCurves[mi]![k]!));
    loadShape[k] = diurnal((k * 24) / DAY_STEPS, fleetPeak, 0.08) / total;
  }

  // Versions and replicas.
  const replicas: Replica[] = [];
  models.forEach((m, mi) => {
    const style = int(r, 0, 3);
    const hasPinned = r() < 0.35 && m.tenants.length >= 4;
    const roles: VersionRole[] = hasPinned ? ['stable', 'canary', 'pinned'] : ['stable', 'canary'];
    const ages: Record<VersionRole, number> = { pinned: 0, stable: 1, canary: 2 };
    const names = new Set<string>();
    m.versions = roles.map((role) => {
      let name = versionName(r, style, ages[role], m.name);
      while (names.has(name)) name = versionName(r, style, ages[role], m.name);
      names.add(name);
      const k = m.labels.length;
      return {
        name,
        role,
        route: routeName(r, routeTaken),
        canaryShare: role === 'canary' ? uniform(r, 0.05, 0.15) : 0,
        latencyFactor: role === 'stable' ? 1 : uniform(r, 0.7, 1.4),
        errorFactor: role === 'stable' ? 1 : uniform(r, 0.7, 1.3),
        replicas: [],
        capacityPerReplica: 0,
        typicalUtilisation: 0.5,
        labelShift: Array.from({ length: k }, () => (role === 'stable' ? 0 : 0.08 * normal(r))),
        confidenceShift: role === 'stable' ? 0 : uniform(r, -0.15, 0.15),
        scoreShift: role === 'stable' ? 0 : 0.05 * m.scoreSd * normal(r),
        outputFactor: role === 'stable' ? 1 : uniform(r, 0.9, 1.1),
        refusalFactor: role === 'stable' ? 1 : uniform(r, 0.8, 1.25),
      };
    });
    if (hasPinned) {
      // One to three tenants, not the largest, stay on the older version.
      const order = m.tenants
        .map((t, k) => ({ t, k }))
        .sort((a, b) => b.t.weight - a.t.weight)
        .slice(1);
      const pinned = shuffle(r, order).slice(0, int(r, 1, Math.min(3, order.length)));
      for (const { t } of pinned) t.pinnedVersion = 2;
    }
    const pinnedShare = m.tenants.filter((t) => t.pinnedVersion === 2).reduce((a, t) => a + t.weight, 0);
    const canaryShare = m.versions[1]!.canaryShare;
    const versionShare = [(1 - pinnedShare) * (1 - canaryShare), (1 - pinnedShare) * canaryShare, pinnedShare];
    // Peak of the model's expected load over a day (diurnal of the model × its tenants' days), and
    // of each version's own: a pinned version serves only its tenants, whose days peak when theirs
    // do (sized on the model's peak × its share, seed 953's lang-detect r40 ran at 0.73 at its
    // peak where 0.6 was meant, and a tenant's routine burst overflowed it on the clean twin).
    const peak = dayCurves[mi]!.reduce((a, x, k) => Math.max(a, x * loadShape[k]!), 0);
    const peakRate = BASE_RATE_PER_S * m.share * peak;
    const versionPeak = versionPeaks(m, tenants, loadShape);
    // Small models are over-provisioned (idle GPUs); large ones run warmer, but every version is
    // sized for N − 1 replicas: losing one keeps utilisation under ~0.8 at the daily peak.
    const bigModel = m.share >= 0.03;
    m.versions.forEach((v, vi) => {
      const nRep = v.role === 'stable' ? int(r, m.share < 0.01 ? 2 : 3, m.share >= 0.08 ? 4 : 3) : 1;
      const ceiling = nRep === 1 ? 0.6 : Math.min(0.62, (0.8 * (nRep - 1)) / nRep);
      const rhoPeak = bigModel ? uniform(r, 0.7 * ceiling, ceiling) : uniform(r, 0.15, Math.min(0.45, ceiling));
      const vPeakRate = Math.max(BASE_RATE_PER_S * m.share * versionPeak[vi]!, peakRate * 0.002);
      v.capacityPerReplica = Math.max(1e-3, vPeakRate / (nRep * rhoPeak));
      v.typicalUtilisation = Math.min(0.9, (BASE_RATE_PER_S * m.share * versionShare[vi]!) / (nRep * v.capacityPerReplica));
      const rs = tag(r, 5);
      for (let k = 0; k < nRep; k++) {
        const base = m.type === 'generative' ? uniform(r, 16, 40) * GIB : m.type === 'ranker' ? uniform(r, 2, 8) * GIB : uniform(r, 0.6, 3) * GIB;
        const runtime = uniform(r, 0.8, 1.6) * GIB;
        // Generative: a KV cache that grows with concurrent sequences, capped at 85 % of the card.
        const load = m.type === 'generative' ? 0.85 * m.pool.gpuMemoryBytes - base - runtime : uniform(r, 1, 4) * GIB;
        v.replicas.push(replicas.length);
        replicas.push({
          name: `${m.name}-${rs}-${tag(r, 5)}`,
          model: mi,
          version: vi,
          node: '',
          gpu: '',
          gpuUuid: `GPU-${tag(r, 8)}-${tag(r, 4)}-${tag(r, 4)}-${tag(r, 12)}`,
          pool: m.pool,
          baseMemoryBytes: base + runtime,
          loadMemoryBytes: load,
          restartsBefore: r() < 0.7 ? 0 : int(r, 1, 4),
        });
      }
    });
  });

  // Nodes: each pool's replicas shuffled onto GPU slots, round-robin over the pool's nodes, so
  // a node mixes models and a model spreads over nodes.
  const nodes: Node[] = [];
  for (const type of ['classifier', 'ranker', 'generative'] as ModelType[]) {
    const pool = POOLS[type];
    const rs = shuffle(
      r,
      replicas.map((_, i) => i).filter((i) => replicas[i]!.pool === pool),
    );
    if (rs.length === 0) continue;
    const nNodes = Math.max(1, Math.ceil(rs.length / pool.gpusPerNode));
    const prefix = pool.name.split('-')[0];
    const first = nodes.length;
    for (let k = 0; k < nNodes; k++) nodes.push({ name: `${prefix}-node-${String(k + 1).padStart(2, '0')}`, pool, replicas: [] });
    rs.forEach((ri, k) => {
      const node = nodes[first + (k % nNodes)]!;
      const rep = replicas[ri]!;
      rep.node = node.name;
      rep.gpu = String(node.replicas.length);
      node.replicas.push(ri);
    });
  }

  return { seed, scale, models, tenants, entries, replicas, nodes, loadShape };
}

/** Hour of day (UTC, fractional) of an epoch-ms time. */
export function hourOfDay(tMs: number): number {
  return (((tMs / 3_600_000) % 24) + 24) % 24;
}

/**
 * Expected requests/s of one tenant on one model at an hour of day, without noise or bursts:
 * fleet rate × scale × model share × tenant weight × the model's day × the tenant's day.
 */
export function expectedTenantRate(fleet: Fleet, model: Model, tm: TenantModel, hourUtc: number): number {
  const t = fleet.tenants[tm.tenant]!;
  return (
    BASE_RATE_PER_S *
    fleet.scale *
    fleetLoad(fleet, hourUtc) *
    model.share *
    model.rateNorm *
    tm.weight *
    diurnal(hourUtc, model.peakHourUtc, model.diurnalAmplitude) *
    diurnal(hourUtc, t.peakHourUtc, t.diurnalAmplitude)
  );
}

/** Expected requests/s per version of a model at an hour of day (routing: pins, then the canary share). */
export function expectedVersionRates(fleet: Fleet, model: Model, hourUtc: number): number[] {
  const out = model.versions.map(() => 0);
  const canary = model.versions[1]!.canaryShare;
  for (const tm of model.tenants) {
    const x = expectedTenantRate(fleet, model, tm, hourUtc);
    if (tm.pinnedVersion >= 0) out[tm.pinnedVersion]! += x;
    else {
      out[0]! += x * (1 - canary);
      out[1]! += x * canary;
    }
  }
  return out;
}

/** Typical end-to-end milliseconds of a model's successful request (the scale incident magnitudes are set on). */
export function typicalTotalMs(fleet: Fleet, model: Model): number {
  const ingress = fleet.entries.reduce((a, e) => a + e.ingressMs, 0) / fleet.entries.length;
  const work = model.type === 'generative' ? model.prefillMs + model.tpotMs * model.outputTokens : model.execMs;
  return ingress + model.queueMs + model.batchMs + work + model.postMs;
}

/** Probability that a tenant's request enters through entry index `entry`. */
export function entryShare(tenant: Tenant, entry: number): number {
  const total = tenant.entryCum[tenant.entryCum.length - 1]!;
  let p = 0;
  tenant.entries.forEach((e, k) => {
    if (e === entry) p += tenant.entryCum[k]! - (k > 0 ? tenant.entryCum[k - 1]! : 0);
  });
  return p / total;
}

/** Expected requests/s of a slice of a model (any of version, tenant, entry) at an hour of day. */
export function expectedSliceRate(fleet: Fleet, model: Model, hourUtc: number, slice: { version?: number; tenant?: number; entry?: number }): number {
  const canary = model.versions[1]!.canaryShare;
  let s = 0;
  for (const tm of model.tenants) {
    if (slice.tenant !== undefined && tm.tenant !== slice.tenant) continue;
    let x = expectedTenantRate(fleet, model, tm, hourUtc);
    if (slice.version !== undefined) {
      if (tm.pinnedVersion >= 0) x *= tm.pinnedVersion === slice.version ? 1 : 0;
      else x *= slice.version === 0 ? 1 - canary : slice.version === 1 ? canary : 0;
    }
    if (slice.entry !== undefined) x *= entryShare(fleet.tenants[tm.tenant]!, slice.entry);
    s += x;
  }
  return s;
}
