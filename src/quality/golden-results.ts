/**
 * `GET /v1/golden/results`: the golden pass rate per model version (overall and per time bucket)
 * and which golden samples fail, from the probe events the runner recorded. Reads at most
 * MAX_PROBE_ROWS probe events, newest first (`truncated` says when there were more).
 */
import type {
  FailingSampleReply as FailingSample,
  GoldenResultsReply,
  GoldenResultsRequest,
  GoldenVersionReply as VersionResult,
  PassCount,
} from '../schema/index.ts';
import type { QualityReads } from './reads.ts';

export const MAX_PROBE_ROWS = 20_000;

const rate = (c: { runs: number; passed: number }): number | null => (c.runs > 0 ? c.passed / c.runs : null);

/** Answers the results request (decoded from the query string). */
export async function goldenResults(reads: QualityReads, o: GoldenResultsRequest): Promise<GoldenResultsReply> {
  const { fromMs, toMs, stepMs } = o;
  const rows = await reads.events({
    fromMs,
    toMs,
    filters: { probe: 'true', ...(o.model ? { model: o.model } : {}) },
    includeProbes: true,
    columns: ['model', 'model_version', 'status', 'attributes'],
    limit: MAX_PROBE_ROWS + 1,
    order: 'ts_desc',
  });
  const truncated = rows.length > MAX_PROBE_ROWS;
  const versions = new Map<string, VersionResult & { byBucket: Map<number, PassCount> }>();
  const samples = new Map<string, FailingSample>();
  for (const r of rows.slice(0, MAX_PROBE_ROWS)) {
    const attrs = (r.attributes ?? {}) as Record<string, string>;
    const set = attrs.golden_set;
    const id = attrs.golden_id;
    if (set === undefined || id === undefined || (o.set !== undefined && set !== o.set)) continue;
    const pass = attrs.golden_pass === 'true';
    const model = r.model ?? null;
    const version = r.model_version ?? null;
    const vk = JSON.stringify([model, version]);
    let v = versions.get(vk);
    if (!v) versions.set(vk, (v = { model, model_version: version, runs: 0, passed: 0, pass_rate: null, errors: 0, byBucket: new Map() }));
    v.runs++;
    if (pass) v.passed++;
    if (r.status != null && r.status !== 'ok') v.errors++;
    const tsMs = Date.parse(String(r.ts));
    if (stepMs !== undefined) {
      const b = fromMs + Math.floor((tsMs - fromMs) / stepMs) * stepMs;
      const c = v.byBucket.get(b) ?? { runs: 0, passed: 0, pass_rate: null };
      c.runs++;
      if (pass) c.passed++;
      v.byBucket.set(b, c);
    }
    const sk = JSON.stringify([set, id, model, version]);
    let s = samples.get(sk);
    if (!s) samples.set(sk, (s = { golden_set: set, golden_id: id, model, model_version: version, runs: 0, fails: 0, last_failure: '', reason: null }));
    s.runs++;
    if (!pass) {
      s.fails++;
      // Rows come newest first: the first failure seen is the latest.
      if (s.last_failure === '') {
        s.last_failure = new Date(tsMs).toISOString();
        s.reason = attrs.golden_reason ?? null;
      }
    }
  }
  return {
    from: new Date(fromMs).toISOString(),
    to: new Date(toMs).toISOString(),
    truncated,
    versions: [...versions.values()]
      .sort((a, b) => String(a.model).localeCompare(String(b.model)) || String(a.model_version).localeCompare(String(b.model_version)))
      .map(({ byBucket, ...v }) => {
        const out: VersionResult = { ...v, pass_rate: rate(v) };
        if (stepMs !== undefined)
          out.buckets = [...byBucket.entries()].sort((a, b) => a[0] - b[0]).map(([b, c]) => ({ bucket: new Date(b).toISOString(), ...c, pass_rate: rate(c) }));
        return out;
      }),
    failing: [...samples.values()]
      .filter((s) => s.fails > 0)
      .sort(
        (a, b) =>
          b.fails - a.fails ||
          a.golden_set.localeCompare(b.golden_set) ||
          a.golden_id.localeCompare(b.golden_id) ||
          String(a.model_version).localeCompare(String(b.model_version)),
      ),
  };
}
