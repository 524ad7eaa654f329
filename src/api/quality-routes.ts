/**
 * Quality routes: the per-model-type summary, drift, the feedback join, golden sets, probe runs and
 * golden results. Each route decodes the request, calls src/quality, and wraps the answer in the
 * success envelope; errors are InferlensErrors turned into statuses by the app's one handler.
 */
import type { Context, Hono } from 'hono';
import { InferlensError } from '../schema/index.ts';
import { parseYamlOffThread, readBody } from '../ingest/index.ts';
import { readJson } from './json-body.ts';
import { GOLDEN_LIMITS, driftQuery, feedbackQuality, goldenDocs, goldenResults, qualitySummary } from '../quality/index.ts';
import type { CompiledSet, GoldenRegistry, ModelType, ProbeRunner, QualityReads } from '../quality/index.ts';

export interface QualityRouteDeps {
  reads: QualityReads;
  golden: GoldenRegistry;
  /** The probe runner, when probe targets are configured (enables POST /v1/golden/run). */
  probes?: ProbeRunner;
  /** Declared model types (config); the others are inferred. */
  modelTypes?: Readonly<Record<string, ModelType>>;
  /** The low-confidence cut-off (config `quality.lowConfidence`). */
  lowConfidence?: number;
  /** Largest accepted body (default 1 MiB). */
  maxBodyBytes?: number;
}

const describeSet = (s: CompiledSet) => ({ name: s.name, model: s.model ?? null, samples: s.samples.length, definition: s.definition });

export function qualityRoutes(deps: QualityRouteDeps): (app: Hono) => void {
  const maxBytes = deps.maxBodyBytes ?? 1 << 20;
  const json = (c: Context) => readJson(c, maxBytes);
  /** A golden set upload: at most GOLDEN_LIMITS.maxBytes; YAML is parsed off the event loop within the limits. */
  const goldenUpload = async (c: Context): Promise<unknown> => {
    const isYaml = /yaml/i.test(c.req.header('content-type') ?? '');
    const text = (await readBody(c.req.raw.body, c.req.header('content-encoding'), Math.min(maxBytes, GOLDEN_LIMITS.maxBytes))).toString('utf8');
    try {
      return JSON.parse(isYaml ? await parseYamlOffThread(text, GOLDEN_LIMITS) : text);
    } catch (e) {
      if (e instanceof SyntaxError) throw new InferlensError('invalid_argument', `body is not valid JSON: ${e.message}`);
      throw e;
    }
  };
  return (app) => {
    app.post('/v1/quality/summary', async (c) => c.json({ status: 'success', data: await qualitySummary(deps.reads, await json(c), { modelTypes: deps.modelTypes ?? {}, ...(deps.lowConfidence !== undefined ? { lowConfidence: deps.lowConfidence } : {}) }) }));
    app.post('/v1/quality/drift', async (c) => c.json({ status: 'success', data: await driftQuery(deps.reads, await json(c)) }));
    app.post('/v1/quality/feedback', async (c) => c.json({ status: 'success', data: await feedbackQuality(deps.reads, await json(c)) }));

    app.get('/v1/golden/sets', (c) => c.json({ status: 'success', data: { sets: deps.golden.list().map(describeSet) } }));
    // One set as JSON, or YAML (one set, a list, or { sets: [...] }) with a YAML content type.
    app.post('/v1/golden/sets', async (c) => {
      const doc = await goldenUpload(c);
      const sets = /yaml/i.test(c.req.header('content-type') ?? '') ? goldenDocs(doc) : [doc];
      if (sets.length === 0) throw new InferlensError('invalid_argument', 'no golden set in the body');
      // All or none: every set is checked, and they are saved together, before any is registered.
      const registered = deps.golden.registerAll(sets);
      return c.json({ status: 'success', data: { sets: registered.map(describeSet) } });
    });
    app.post('/v1/golden/run', async (c) => {
      if (!deps.probes) throw new InferlensError('not_found', 'no golden probe targets are configured: add quality.probes.targets to the config');
      return c.json({ status: 'success', data: await deps.probes.runOnce() });
    });
    app.get('/v1/golden/results', async (c) => c.json({ status: 'success', data: await goldenResults(deps.reads, c.req.query()) }));
  };
}
