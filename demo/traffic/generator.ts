/**
 * Live traffic: open-loop arrivals (Poisson per tick at the rate model's rate × the scenario's
 * multiplier) sent to the demo service's `POST /v1/classify` on loopback. Open loop means a slow
 * service does not slow the arrivals down, which is what makes queues grow in a load spike; the
 * client still bounds its own requests in flight (`maxInFlight`) and counts arrivals it sheds.
 *
 * Each request carries a held-out SpamAssassin message whose true label is known (or, while the
 * drift knob is up, a message of the never-trained-on hard subset), so feedback can be derived.
 *
 * Like real clients, a few misbehave from the first second (`CLIENT_TRICKLE`): 0.1 % of requests
 * are malformed (no text: a 400 bad_input error), 0.1 % carry a 1 ms deadline the service cannot
 * meet (a 504 timeout), and about every two minutes one tenant retries a failed call in a tight
 * loop, four requests at once, which its rate limit (burst 2 for the small tenants) partly turns
 * away: about 2 of 480 requests at 4 req/s, the 0.4 % the backfilled history writes
 * (`rateLimitedShare`). Errors and timeouts together stay at 0.2 %, well inside the default
 * rules' 99.5 % objective (a burn rate of 0.4×).
 */
import type { Message } from '../model/index.ts';
import { createRandom } from '../model/index.ts';
import type { ObservedRequest } from '../feedback/index.ts';
import type { BurstSettings } from '../scenario/index.ts';
import { poisson } from './rate.ts';
import type { RateModel } from './rate.ts';
import { createTenantPicker } from './tenants.ts';
import type { Entry, Tenant } from './tenants.ts';

export interface TrafficOptions {
  /** Base URL of the demo service, e.g. http://127.0.0.1:8088 (loopback). */
  url: string;
  rate: RateModel;
  tenants: readonly Tenant[];
  /** Normal traffic: held-out messages. */
  messages: readonly Message[];
  /** Input-drift traffic: the hard subset. */
  driftMessages: readonly Message[];
  /** Requests in flight at most; arrivals beyond it are shed and counted. Default 512. */
  maxInFlight?: number;
  tickMs?: number;
  requestTimeoutMs?: number;
  seed?: number;
  /** Prefix of request ids (unique per run). */
  runId?: string;
  /** Wall clock, epoch ms. */
  now?: () => number;
  /** Called once per finished request (after the reply or the failure). Must not throw. */
  onResult?: (result: TrafficResult) => void;
  /** Misbehaving clients: CLIENT_TRICKLE, other shares, or false for none. Default CLIENT_TRICKLE. */
  clientTrickle?: false | Partial<Record<keyof typeof CLIENT_TRICKLE, number>>;
}

/** The misbehaving clients of a real service, present from the start (shares of requests; bursts per second). */
export const CLIENT_TRICKLE = {
  malformedShare: 0.001,
  tightDeadlineShare: 0.001,
  retryBurstPerS: 1 / 120,
  retryBurstSize: 4,
  rateLimitedShare: 0.004,
} as const;

export interface TrafficResult extends ObservedRequest {
  entry: Entry;
}

export interface TrafficStats {
  sent: number;
  shed: number;
  inFlight: number;
  /** Replies by HTTP status ("0" = no reply). */
  byHttpStatus: Record<string, number>;
}

export interface Traffic {
  start(): void;
  /** Stops new arrivals and waits for requests in flight, at most `deadlineMs`. Idempotent. */
  stop(deadlineMs?: number): Promise<void>;
  setRateMultiplier(multiplier: number): void;
  /** Share of requests drawn from the hard subset, 0–1. */
  setDriftShare(share: number): void;
  setBurst(burst: BurstSettings | null): void;
  stats(): TrafficStats;
}

interface Reply {
  label?: unknown;
  model_version?: unknown;
}

export function createTraffic(options: TrafficOptions): Traffic {
  if (options.messages.length === 0) throw new Error('createTraffic needs messages to send');
  const random = createRandom(options.seed ?? 11);
  const picker = createTenantPicker(options.tenants, createRandom((options.seed ?? 11) + 1));
  const now = options.now ?? Date.now;
  const maxInFlight = options.maxInFlight ?? 512;
  const tickMs = options.tickMs ?? 20;
  const timeoutMs = options.requestTimeoutMs ?? 10_000;
  const runId = options.runId ?? `t${now().toString(36)}`;
  const endpoint = `${options.url}/v1/classify`;
  let multiplier = 1;
  let driftShare = 0;
  let burst: BurstSettings | null = null;
  let lastBurstMs = 0;
  let timer: NodeJS.Timeout | undefined;
  let lastTickMs = 0;
  let seq = 0;
  let inFlight = 0;
  let sent = 0;
  let shed = 0;
  const byHttpStatus: Record<string, number> = {};
  const pending = new Set<Promise<void>>();

  const pickMessage = (): { message: Message; drift: boolean } => {
    const drift = driftShare > 0 && options.driftMessages.length > 0 && random() < driftShare;
    const pool = drift ? options.driftMessages : options.messages;
    return { message: pool[Math.floor(random() * pool.length)] as Message, drift };
  };

  const trickle = options.clientTrickle !== false;
  const shares = { ...CLIENT_TRICKLE, ...(options.clientTrickle || {}) };
  const fire = (entryOverride?: Entry, tenantOverride?: Tenant): void => {
    if (inFlight >= maxInFlight) {
      shed++;
      return;
    }
    const picked = picker.pick();
    const tenant = tenantOverride ?? picked.tenant;
    const entry = picked.entry;
    const { message, drift } = pickMessage();
    const requestId = `${runId}-${(seq++).toString(36)}`;
    const tsMs = now();
    const t0 = performance.now();
    const u = trickle ? random() : 1;
    const malformed = u < shares.malformedShare;
    const tight = !malformed && u < shares.malformedShare + shares.tightDeadlineShare;
    const body = JSON.stringify({
      ...(malformed ? {} : { text: message.text }),
      tenant: tenant.name,
      entry: entryOverride ?? entry,
      request_id: requestId,
      ...(tight ? { deadline_ms: 1 } : {}),
    });
    inFlight++;
    sent++;
    const work = (async () => {
      let httpStatus = 0;
      let reply: Reply = {};
      try {
        const res = await fetch(endpoint, { method: 'POST', headers: { 'content-type': 'application/json' }, body, signal: AbortSignal.timeout(timeoutMs) });
        httpStatus = res.status;
        reply = (await res.json()) as Reply;
      } catch {
        // no reply: counted under "0"
      }
      inFlight--;
      byHttpStatus[httpStatus] = (byHttpStatus[httpStatus] ?? 0) + 1;
      const label = reply.label === 'spam' || reply.label === 'ham' ? reply.label : undefined;
      try {
        options.onResult?.({
          requestId,
          tsMs,
          tenant: tenant.name,
          entry: entryOverride ?? entry,
          truth: message.label,
          drift,
          httpStatus,
          ...(label && { label }),
          ...(typeof reply.model_version === 'string' && { modelVersion: reply.model_version }),
          latencyMs: performance.now() - t0,
        });
      } catch {
        // a listener's failure is not the traffic's
      }
    })();
    pending.add(work);
    void work.finally(() => pending.delete(work));
  };

  const tick = (): void => {
    const t = now();
    const dtS = Math.min(1, (t - lastTickMs) / 1000);
    lastTickMs = t;
    const n = poisson(options.rate.ratePerS(t) * multiplier * dtS, random);
    for (let i = 0; i < n; i++) fire();
    if (trickle && random() < shares.retryBurstPerS * dtS) {
      const retrying = picker.pick().tenant;
      for (let i = 0; i < shares.retryBurstSize; i++) fire(undefined, retrying);
    }
    if (burst && t - lastBurstMs >= burst.everyMs) {
      lastBurstMs = t;
      for (let i = 0; i < burst.size; i++) fire('batch');
    }
  };

  return {
    start() {
      if (timer) return;
      lastTickMs = now();
      timer = setInterval(tick, tickMs);
      timer.unref();
    },
    async stop(deadlineMs = 10_000) {
      if (timer) clearInterval(timer);
      timer = undefined;
      const deadline = new Promise<void>((r) => setTimeout(r, deadlineMs).unref());
      await Promise.race([Promise.allSettled([...pending]).then(() => undefined), deadline]);
    },
    setRateMultiplier(m) {
      if (!(m >= 0)) throw new Error(`rate multiplier must be ≥ 0, got ${m}`);
      multiplier = m;
    },
    setDriftShare(share) {
      if (!(share >= 0 && share <= 1)) throw new Error(`drift share must be 0–1, got ${share}`);
      driftShare = share;
    },
    setBurst(b) {
      burst = b;
      lastBurstMs = 0;
    },
    stats: () => ({ sent, shed, inFlight, byHttpStatus: { ...byHttpStatus } }),
  };
}
