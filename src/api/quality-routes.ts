/**
 * Quality routes: the per-model-type summary, drift, the feedback join, golden sets, probe runs and
 * golden results. Each route decodes the request, calls src/quality, and wraps the answer in the
 * success envelope; errors are InferlensErrors turned into statuses by the app's one handler.
 */
import type { Context } from 'hono';
import { FeedbackQualityRequestSchema, GoldenResultsRequestSchema, InferlensError, DriftRequestSchema, QualitySummaryRequestSchema, decode } from '../schema/index.ts';
import { readBody } from '../ingest/index.ts';
import { readJson } from './json-body.ts';
import { compileGoldenSet, driftQuery, feedbackQuality, goldenResults, goldenYamlDocs, qualitySummary } from '../quality/index.ts';
import type { CompiledSet, GoldenRegistry, ModelType, ProbeRunner } from '../quality/index.ts';
import type { Route } from './routes.ts';

export interface QualityRouteDeps {
  golden: GoldenRegistry;
  /** The probe runner, when probe targets are configured (enables POST /v1/golden/run). */
  probes?: ProbeRunner;
  /** Declared model types (config); the others are inferred. */
  modelTypes?: Readonly<Record<string, ModelType>>;
  /** Largest accepted body (default 1 MiB). */
  maxBodyBytes?: number;
}

const describeSet = (s: CompiledSet) => ({ name: s.name, model: s.model ?? null, samples: s.samples.length, definition: s.definition });
const ok = (c: Context, data: unknown) => c.json({ status: 'success', data });

/** Golden sets as JSON or YAML (one set, a list, or { sets: [...] }). */
const GOLDEN_TYPES = ['application/json', 'application/yaml', 'application/x-yaml', 'text/yaml', 'text/x-yaml'];

export function qualityRoutes(deps: QualityRouteDeps): Route[] {
  const maxBytes = deps.maxBodyBytes ?? 1 << 20;
  const text = async (c: Context) => (await readBody(c.req.raw.body, c.req.header('content-encoding'), maxBytes)).toString('utf8');
  const json = (c: Context) => readJson(c, maxBytes);
  return [
    { method: 'POST', path: '/v1/quality/summary', access: 'read', handler: async (c) => ok(c, await qualitySummary(c.var.reads.quality, decode(QualitySummaryRequestSchema, await json(c), 'quality summary request'), { modelTypes: deps.modelTypes ?? {} })) },
    { method: 'POST', path: '/v1/quality/drift', access: 'read', handler: async (c) => ok(c, await driftQuery(c.var.reads.quality, decode(DriftRequestSchema, await json(c), 'drift request'))) },
    { method: 'POST', path: '/v1/quality/feedback', access: 'read', handler: async (c) => ok(c, await feedbackQuality(c.var.reads.quality, decode(FeedbackQualityRequestSchema, await json(c), 'feedback quality request'))) },

    { method: 'GET', path: '/v1/golden/sets', access: 'read', handler: (c) => ok(c, { sets: deps.golden.list().map(describeSet) }) },
    {
      method: 'POST',
      path: '/v1/golden/sets',
      access: 'operate',
      audit: 'golden.register',
      accepts: GOLDEN_TYPES,
      handler: async (c) => {
        const type = c.req.header('content-type') ?? '';
        const sets = /yaml/i.test(type) ? goldenYamlDocs(await text(c)) : [await json(c)];
        if (sets.length === 0) throw new InferlensError('invalid_argument', 'no golden set in the body');
        sets.forEach(compileGoldenSet); // all or none: every set is checked before any is registered
        const registered = sets.map((s) => deps.golden.register(s));
        c.set('audit', { target: registered.map((s) => s.name).join(', '), tenants: null, details: { sets: registered.map((s) => ({ name: s.name, samples: s.samples.length })) } });
        return ok(c, { sets: registered.map(describeSet) });
      },
    },
    {
      method: 'POST',
      path: '/v1/golden/run',
      access: 'operate',
      audit: 'golden.run',
      handler: async (c) => {
        if (!deps.probes) throw new InferlensError('not_found', 'no golden probe targets are configured: add quality.probes.targets to the config');
        c.set('audit', { tenants: null });
        return ok(c, await deps.probes.runOnce());
      },
    },
    { method: 'GET', path: '/v1/golden/results', access: 'read', handler: async (c) => ok(c, await goldenResults(c.var.reads.quality, decode(GoldenResultsRequestSchema, c.req.query(), 'golden results request'))) },
  ];
}
