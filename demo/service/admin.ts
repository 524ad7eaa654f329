/**
 * `POST /admin/<action>` with a JSON body: the HTTP face of `ServiceControls`. Bad bodies are
 * answered with 400 and the zod issues, unknown actions with 404, and a control that refuses
 * (e.g. an unknown replica) with 400 and its message.
 */
import { z } from 'zod';
import type { ServiceControls } from './controls.ts';

const version = z.enum(['v1', 'v2']);
const share = z.number().min(0).max(1);

interface Action {
  run(controls: ServiceControls, body: unknown): void | Promise<void>;
}

function action<S extends z.ZodType>(schema: S, run: (controls: ServiceControls, p: z.infer<S>) => void | Promise<void>): Action {
  return { run: (controls, body) => run(controls, schema.parse(body)) };
}

const ACTIONS: Record<string, Action> = {
  slow_replica: action(z.object({ replica: z.string(), factor: z.number().min(1).max(100).default(3) }), (c, p) => c.slowReplica(p.replica, p.factor)),
  replica_fault: action(z.object({ replica: z.string(), rate: share }), (c, p) => c.replicaFault(p.replica, p.rate)),
  kill_replica: action(z.object({ replica: z.string() }), (c, p) => c.killReplica(p.replica)),
  // switch_route: route new batches around the replica (params of the alert's rule: model, replica).
  drain_replica: action(z.object({ replica: z.string().min(1), drained: z.boolean().default(true) }), (c, p) => c.drainReplica(p.replica, p.drained)),
  // scale_out: one more replica (the rule's params name the model; the demo serves one).
  scale_out: action(z.object({ model: z.string().optional() }), async (c) => {
    await c.scaleOut();
  }),
  tenant_error: action(z.object({ tenant: z.string().min(1), version: version.default('v2'), rate: share.default(1) }), (c, p) =>
    c.tenantError(p.tenant, { version: p.version, rate: p.rate }),
  ),
  set_canary: action(z.object({ percent: z.number().min(0).max(100), rule: z.string().default('canary') }), (c, p) => c.setCanary(p.percent, p.rule)),
  pause_canary: action(z.object({ rule: z.string().default('canary') }), (c, p) => c.pauseCanary(p.rule)),
  resume_canary: action(z.object({ rule: z.string().default('canary') }), (c, p) => c.resumeCanary(p.rule)),
  adjust_batch: action(
    z.object({ version: version.optional(), maxBatchSize: z.number().int().min(1).max(1024).optional(), maxWaitMs: z.number().min(0).max(10_000).optional() }),
    (c, p) =>
      c.adjustBatch(
        { ...(p.maxBatchSize !== undefined && { maxBatchSize: p.maxBatchSize }), ...(p.maxWaitMs !== undefined && { maxWaitMs: p.maxWaitMs }) },
        p.version,
      ),
  ),
  regression: action(
    z.object({
      version: version.default('v2'),
      slowdownFactor: z.number().min(1).max(100).default(2),
      flipRate: share.default(0.2),
      off: z.boolean().default(false),
    }),
    (c, p) => c.regression(p.version, p.off ? null : { slowdownFactor: p.slowdownFactor, flipRate: p.flipRate }),
  ),
  set_rate_limit: action(z.object({ tenant: z.string().min(1), ratePerS: z.number().positive().optional(), burst: z.number().min(1).optional() }), (c, p) =>
    c.setRateLimit(p.tenant, p.ratePerS === undefined ? null : { ratePerS: p.ratePerS, burst: p.burst ?? Math.max(1, p.ratePerS) }),
  ),
  reset: action(z.object({}), (c) => c.reset()),
};

export const ADMIN_ACTIONS: readonly string[] = Object.keys(ACTIONS);

export interface AdminReply {
  status: number;
  body: unknown;
}

export async function runAdmin(name: string, body: unknown, controls: ServiceControls): Promise<AdminReply> {
  const a = Object.hasOwn(ACTIONS, name) ? ACTIONS[name] : undefined;
  if (!a) return { status: 404, body: { error: `unknown admin action ${name}: expected one of ${ADMIN_ACTIONS.join(', ')}` } };
  try {
    await a.run(controls, body ?? {});
  } catch (err) {
    if (err instanceof z.ZodError)
      return { status: 400, body: { error: `bad body for ${name}`, issues: err.issues.map((i) => `${i.path.join('.') || '(body)'}: ${i.message}`) } };
    return { status: 400, body: { error: (err as Error).message } };
  }
  return { status: 200, body: { ok: true, state: controls.state() } };
}
