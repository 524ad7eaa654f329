/**
 * Quality routes: the per-model-type summary, drift, the feedback join, golden sets, probe runs and
 * golden results. Each route decodes the request, calls src/quality, and wraps the answer in the
 * success envelope; errors are InferlensErrors turned into statuses by the app's one handler.
 */
import type { Context } from 'hono';
import {
  FeedbackQualityRequestSchema,
  GoldenResultsRequestSchema,
  InferlensError,
  DriftRequestSchema,
  QualitySummaryRequestSchema,
  decode,
} from '../schema/index.ts';
import { parseYamlOffThread, readBody } from '../ingest/index.ts';
import { readJson } from './json-body.ts';
import { GOLDEN_LIMITS, driftQuery, feedbackQuality, goldenDocs, goldenResults, qualitySummary } from '../quality/index.ts';
import type { CompiledSet, GoldenRegistry, ModelType, ProbeRunner } from '../quality/index.ts';
import type { Route } from './routes.ts';

export interface QualityRouteDeps {
  golden: GoldenRegistry;
  /** The probe runner, when probe targets are configured (enables POST /v1/golden/run). */
  probes?: ProbeRunner;
  /** Declared model types (config); the others are inferred. */
  modelTypes?: Readonly<Record<string, ModelType>>;
  /** The low-confidence cut-off (config `quality.low_confidence`). */
  lowConfidence?: number;
  /** Largest accepted body (default 1 MiB). */
  maxBodyBytes?: number;
}

const describeSet = (s: CompiledSet) => ({ name: s.name, model: s.model ?? null, samples: s.samples.length, definition: s.definition });
const ok = (c: Context, data: unknown) => c.json({ status: 'success', data });

/** Golden sets as JSON or YAML (one set, a list, or { sets: [...] }). */
const GOLDEN_TYPES = ['application/json', 'application/yaml', 'application/x-yaml', 'text/yaml', 'text/x-yaml'];

export function qualityRoutes(deps: QualityRouteDeps): Route[] {
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
  const summaryOptions = { modelTypes: deps.modelTypes ?? {}, ...(deps.lowConfidence !== undefined ? { lowConfidence: deps.lowConfidence } : {}) };
  return [
    {
      method: 'POST',
      path: '/v1/quality/summary',
      access: 'read',
      handler: async (c) =>
        ok(c, await qualitySummary(c.var.reads.quality, decode(QualitySummaryRequestSchema, await json(c), 'quality summary request'), summaryOptions)),
    },
    {
      method: 'POST',
      path: '/v1/quality/drift',
      access: 'read',
      handler: async (c) => ok(c, await driftQuery(c.var.reads.quality, decode(DriftRequestSchema, await json(c), 'drift request'))),
    },
    {
      method: 'POST',
      path: '/v1/quality/feedback',
      access: 'read',
      handler: async (c) => ok(c, await feedbackQuality(c.var.reads.quality, decode(FeedbackQualityRequestSchema, await json(c), 'feedback quality request'))),
    },

    { method: 'GET', path: '/v1/golden/sets', access: 'read', handler: (c) => ok(c, { sets: deps.golden.list().map(describeSet) }) },
    {
      method: 'POST',
      path: '/v1/golden/sets',
      access: 'operate',
      audit: 'golden.register',
      accepts: GOLDEN_TYPES,
      handler: async (c) => {
        // One set as JSON, or YAML (one set, a list, or { sets: [...] }) with a YAML content type.
        const doc = await goldenUpload(c);
        const sets = /yaml/i.test(c.req.header('content-type') ?? '') ? goldenDocs(doc) : [doc];
        if (sets.length === 0) throw new InferlensError('invalid_argument', 'no golden set in the body');
        // All or none: every set is checked, and they are saved together, before any is registered.
        const registered = deps.golden.registerAll(sets);
        c.set('audit', {
          target: registered.map((s) => s.name).join(', '),
          tenants: null,
          details: { sets: registered.map((s) => ({ name: s.name, samples: s.samples.length })) },
        });
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
    {
      method: 'GET',
      path: '/v1/golden/results',
      access: 'read',
      handler: async (c) => ok(c, await goldenResults(c.var.reads.quality, decode(GoldenResultsRequestSchema, c.req.query(), 'golden results request'))),
    },
  ];
}
