/**
 * Seeded synthetic inference traffic for the release tests and `bench/aa-trials.ts`: lognormal
 * stage latencies, a status mix, a label mix with confidence, and optional golden probes. Returns
 * event JSON lines as `Store.appendEvents` takes them (ts in epoch ms).
 *
 * Stage medians / log-sd: ingress 2 ms / 0.3, queue 5 / 0.8, batch 3 / 0.5, exec 40 / 0.35,
 * post 2 / 0.3; total = their sum (P99 ≈ 110 ms).
 */
import { mulberry32 } from '../analysis/index.ts';

export interface TrafficOptions {
  seed: number;
  /** User-traffic rows. */
  n: number;
  fromMs: number;
  toMs: number;
  model?: string;
  modelVersion: string;
  tenant?: string;
  /** Each row gets one of these replicas, uniformly (an A/A split by replica). */
  replicas?: readonly string[];
  /** exec_ms is multiplied by this (default 1) … */
  execFactor?: number;
  /** … only where exec's standard-normal draw is above this (e.g. 1.2816: the slowest 10 %); default everywhere. */
  execTailZ?: number;
  errorRate?: number;
  rejectRate?: number;
  /** Golden probes (probe: true) with attributes.golden_pass drawn at `goldenPassRate`. */
  probes?: number;
  goldenPassRate?: number;
  /** Prefix of request ids (unique per call). */
  idPrefix: string;
}

const LABELS = ['cat', 'dog', 'bird', 'fish'] as const;
const LABEL_P = [0.5, 0.3, 0.15, 0.05];
const STAGES = [
  ['ingress_ms', 2, 0.3],
  ['queue_ms', 5, 0.8],
  ['batch_ms', 3, 0.5],
  ['exec_ms', 40, 0.35],
  ['post_ms', 2, 0.3],
] as const;

/** Standard normal draws by Box–Muller from a uniform generator. */
function normal(random: () => number): () => number {
  return () => Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
}

export function syntheticTraffic(o: TrafficOptions): string[] {
  const random = mulberry32(o.seed);
  const gauss = normal(random);
  const lines: string[] = [];
  const span = o.toMs - o.fromMs;
  const pick = <T>(xs: readonly T[]): T => xs[Math.min(xs.length - 1, Math.floor(random() * xs.length))] as T;
  const dims = (): Record<string, string> => {
    const d: Record<string, string> = { model: o.model ?? 'm', model_version: o.modelVersion };
    if (o.tenant) d.tenant = o.tenant;
    if (o.replicas) d.replica = pick(o.replicas);
    return d;
  };
  for (let i = 0; i < o.n; i++) {
    const e: Record<string, unknown> = { ts: o.fromMs + Math.floor(random() * span), request_id: `${o.idPrefix}-${i}`, ...dims() };
    let total = 0;
    for (const [name, medianMs, sd] of STAGES) {
      const z = gauss();
      let v = medianMs * Math.exp(sd * z);
      if (name === 'exec_ms' && z > (o.execTailZ ?? -Infinity)) v *= o.execFactor ?? 1;
      e[name] = Math.round(v * 1000) / 1000;
      total += v;
    }
    e.total_ms = Math.round(total * 1000) / 1000;
    const u = random();
    e.status = u < (o.errorRate ?? 0.01) ? 'error' : u < (o.errorRate ?? 0.01) + (o.rejectRate ?? 0.005) ? 'rejected' : 'ok';
    if (e.status === 'error') e.error_type = 'internal';
    let r = random();
    let k = 0;
    while (k < LABELS.length - 1 && r >= (LABEL_P[k] as number)) r -= LABEL_P[k++] as number;
    e.label = LABELS[k];
    e.confidence = Math.round((0.55 + 0.45 * Math.sqrt(random())) * 1e4) / 1e4;
    lines.push(JSON.stringify(e));
  }
  for (let i = 0; i < (o.probes ?? 0); i++) {
    const pass = random() < (o.goldenPassRate ?? 0.95);
    lines.push(
      JSON.stringify({
        ts: o.fromMs + Math.floor(random() * span),
        request_id: `${o.idPrefix}-probe-${i}`,
        ...dims(),
        total_ms: 50,
        status: 'ok',
        probe: true,
        attributes: { golden_pass: String(pass), golden_set: 'smoke' },
      }),
    );
  }
  return lines;
}
