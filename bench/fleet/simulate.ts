// Over 400 lines on purpose: one room: the minute-by-minute simulation loop, whose mechanisms share the per-minute state (README.md explains each).
/**
 * The fleet's requests and resource samples, minute by minute, second by second, in bounded
 * batches. See README.md for every mechanism and why it is there.
 *
 * Randomness (random.ts): arrivals and every per-request draw come from the traffic stream of
 * (model, absolute minute), probes from (model × version, minute), resource noise from (minute),
 * load noise from (model, minute), the standing nuisance (bursts, blips, isolated restarts) from
 * (model, absolute hour). Incident effects draw only from their own stream per incident. So the
 * clean twin is the same numbers minus the incident effects, and a run is the same whatever its
 * history length or duration around a given minute.
 */
import type { ErrorType, ResourceSample, Status } from '../../src/schema/index.ts';
import type { Fleet, Model, Replica, TenantModel } from './fleet.ts';
import { BASE_RATE_PER_S, diurnal, fleetLoad, hourOfDay } from './fleet.ts';
import type { Incident } from './incidents.ts';
import type { Random } from './random.ts';
import { STREAM, cumulative, int, lognormal, normal, pick, pickCumulative, poisson, stream, uniform } from './random.ts';

/** One bounded piece of a run: event lines (flat, checkEvent-valid JSON) and resource samples. */
export interface FleetBatch {
  events: string[];
  resources: ResourceSample[];
  /** Bounds of the events' ts (epoch ms), for the store's duplicate check; NaN when no events. */
  minTsMs: number;
  maxTsMs: number;
}

export interface SimulateOptions {
  fleet: Fleet;
  seed: number;
  /** Empty for the clean twin. */
  incidents: readonly Incident[];
  historyStartMs: number;
  endMs: number;
  /** Events per batch (a batch closes at the first minute boundary past it). */
  batchRows: number;
}

const MIN = 60_000;
const HOUR = 3_600_000;
const SLOT_MS = 15_000;
const GIB = 1024 ** 3;
/** Share of requests with a rare ~10× stall (GC pause, page fault, a cold kernel). */
const OUTLIER_RATE = 0.003;
/** Timeouts not caused by latency: a dependency that never answered. */
const BASE_TIMEOUT_RATE = 0.0004;
/** A crash fails the requests in flight (those that arrived in the 2 s before it)… */
const FAULT_WINDOW_MS = 2_000;
/** …and those routed to it until the balancer's health check notices (3 s). */
const DETECT_MS = 3_000;
const PROBE_PASS_RATE = 0.995;

const HTTP: Record<ErrorType, number> = {
  bad_input: 400,
  internal: 500,
  dependency_timeout: 504,
  dependency_error: 502,
  resource_exhausted: 503,
  replica_fault: 502,
  model_load: 503,
  other: 500,
};

interface Burst {
  pair: number;
  fromMs: number;
  toMs: number;
  mult: number;
}

interface Blip {
  version: number;
  replica: number;
  fromMs: number;
  toMs: number;
  errorRate: number;
  errorType: ErrorType;
  latencyFactor: number;
}

interface Outage {
  crashMs: number;
  upMs: number;
  /** The incident that caused it, or null (an isolated restart, part of the clean traffic). */
  incident: Incident | null;
}

const r3 = (x: number): number => Math.round(x * 1000) / 1000;
const r4 = (x: number): number => Math.round(x * 10000) / 10000;
/**
 * A non-negative number of milliseconds as JSON text with at most 3 decimals (microseconds, what
 * the store keeps). Integer formatting: ~4× cheaper than printing the rounded double.
 */
function ms3(x: number): string {
  const i = Math.round(x * 1000);
  const w = Math.floor(i / 1000);
  const f = i - w * 1000;
  return f === 0 ? String(w) : f < 10 ? `${w}.00${f}` : f < 100 ? `${w}.0${f}` : `${w}.${f}`;
}
const clamp = (x: number, lo: number, hi: number): number => (x < lo ? lo : x > hi ? hi : x);
const sigmoid = (x: number): number => 1 / (1 + Math.exp(-x));

/** Bursts, blips and isolated restarts of the hours a run touches (absolute hours: stable across run lengths). */
export function nuisance(fleet: Fleet, seed: number, fromMs: number, toMs: number) {
  const bursts: Burst[][] = fleet.models.map(() => []);
  const blips: Blip[][] = fleet.models.map(() => []);
  const outages: Outage[][] = fleet.replicas.map(() => []);
  for (let h = Math.floor(fromMs / HOUR); h * HOUR < toMs; h++) {
    fleet.models.forEach((m, mi) => {
      const r = stream(seed, STREAM.nuisance, mi, h);
      const modelMean = m.share;
      // Tenant bursts: each pair bursts ~0.15 times an hour, 1–6 minutes, ×2–5, capped so the
      // burst adds at most 30 % of the mean load of the model — or, for a tenant pinned to a
      // version, of that version, which alone serves it (normal bursts stay within capacity).
      const pinnedShare = m.tenants.filter((t) => t.pinnedVersion === 2).reduce((a, t) => a + t.weight, 0);
      m.tenants.forEach((tm, pair) => {
        const n = poisson(r, 0.15);
        const served = tm.pinnedVersion === 2 ? pinnedShare : 1;
        for (let i = 0; i < n; i++) {
          const fromMsB = h * HOUR + Math.floor(r() * HOUR);
          const durMs = Math.round(uniform(r, 1, 6) * MIN);
          const cap = 1 + (0.3 * modelMean * served) / Math.max(1e-9, modelMean * tm.weight);
          bursts[mi]!.push({ pair, fromMs: fromMsB, toMs: fromMsB + durMs, mult: Math.min(lognormal(r, 3, 0.3), cap) });
        }
      });
      // Blips: ~0.25 per model-hour, 3–20 s, on a version or one replica: errors or a stall.
      const nb = poisson(r, 0.25);
      for (let i = 0; i < nb; i++) {
        const vi = r() < 0.75 ? 0 : int(r, 0, m.versions.length - 1);
        const v = m.versions[vi]!;
        const replica = r() < 0.5 ? pick(r, v.replicas) : -1;
        const fromMsB = h * HOUR + Math.floor(r() * HOUR);
        const errors = r() < 0.7;
        blips[mi]!.push({
          version: vi,
          replica,
          fromMs: fromMsB,
          toMs: fromMsB + Math.round(uniform(r, 3, 20) * 1000),
          errorRate: errors ? uniform(r, 0.2, 0.8) : 0,
          errorType: pick(r, ['dependency_timeout', 'internal', 'replica_fault'] as ErrorType[]),
          latencyFactor: errors ? 1 : uniform(r, 3, 6),
        });
      }
      // Isolated restarts: ~0.04 per model-hour, a replica of a multi-replica version, 8–20 s down;
      // isolated: one drawn within an hour of another on the same replica is left out (two in ten
      // minutes are a crash loop, an incident the truth would not list: seed 945's clean twin).
      const nr = poisson(r, 0.04);
      for (let i = 0; i < nr; i++) {
        const v = m.versions.filter((x) => x.replicas.length >= 2);
        const ri = pick(r, pick(r, v).replicas);
        const crashMs = h * HOUR + Math.floor(r() * HOUR);
        const upMs = crashMs + Math.round(uniform(r, 8, 20) * 1000);
        if (isolated(outages[ri]!, crashMs)) outages[ri]!.push({ crashMs, upMs, incident: null });
      }
    });
  }
  return { bursts, blips, outages };
}

/** Least time between two isolated restarts of one replica. */
export const ISOLATION_MS = HOUR;

/** Whether a restart at crashMs is isolated: no other restart of the replica within ISOLATION_MS. */
export const isolated = (restarts: readonly { crashMs: number }[], crashMs: number): boolean =>
  restarts.every((x) => Math.abs(x.crashMs - crashMs) >= ISOLATION_MS);

/** What the bursts of one model's minute may add together: the share one burst may add on its own. */
const BURST_CAP = 0.3;

/**
 * Applies a minute's bursts to the tenants' rates (in place). Each burst is capped where it is
 * drawn, but bursts are drawn per tenant, and two at once could overload a fleet sized for its
 * daily peak (seed 902's clean twin: two tenants of news-rank ×2 and ×5.5 in the same four minutes,
 * 2× its load, queue 15 ms → 2 s and 8.5 % of a version shed: an incident in the data with none in
 * the truth). So when two or more burst together, their extras are scaled down evenly to BURST_CAP
 * of the model's rate that minute, and those of tenants pinned to one version to BURST_CAP of
 * theirs. Worked: rates 10, 10, 80; the first two ×4 at once add 60 > 30 → each adds 15 (25, 25, 80).
 */
export function capBursts(lam: Float64Array, active: readonly Burst[], pinned: readonly number[]): void {
  if (active.length === 0) return;
  const base = Float64Array.from(lam);
  for (const b of active) lam[b.pair]! *= b.mult;
  const scale = (inGroup: (p: number) => boolean) => {
    // One burst is capped where it is drawn.
    if (active.filter((b) => inGroup(b.pair)).length < 2) return;
    let extra = 0;
    let load = 0;
    for (let p = 0; p < lam.length; p++)
      if (inGroup(p)) {
        extra += lam[p]! - base[p]!;
        load += base[p]!;
      }
    if (extra <= BURST_CAP * load) return;
    const f = (BURST_CAP * load) / extra;
    for (let p = 0; p < lam.length; p++) if (inGroup(p)) lam[p] = base[p]! + (lam[p]! - base[p]!) * f;
  };
  for (const v of new Set(pinned.filter((x) => x >= 0))) scale((p) => pinned[p] === v);
  scale(() => true);
}

/** The simulation: a generator of batches in time order. */
export function* simulate(o: SimulateOptions): Generator<FleetBatch> {
  const { fleet, seed } = o;
  const scale = fleet.scale;
  const models = fleet.models;
  const nz = nuisance(fleet, seed, o.historyStartMs, o.endMs);
  const outages = nz.outages;
  for (const inc of o.incidents) {
    if (inc.kind === 'replica_restarts' || inc.kind === 'gpu_memory_creep') {
      for (const c of inc.crashesMs) outages[inc.replica]!.push({ crashMs: c, upMs: c + Math.round(inc.gapS * 1000), incident: inc });
    }
  }
  for (const list of outages) list.sort((a, b) => a.crashMs - b.crashMs);
  const crashTimes = outages.map((list) => list.map((x) => x.crashMs));

  const incidentsByModel: Incident[][] = models.map(() => []);
  for (const inc of o.incidents) incidentsByModel[inc.model]!.push(inc);
  const incidentRng = new Map<Incident, Random>();
  o.incidents.forEach((inc, k) => incidentRng.set(inc, stream(seed, STREAM.incidentEffect, k)));

  // Per version: the queue's backlog (requests beyond capacity), carried second to second.
  const backlog = models.map((m) => m.versions.map(() => 0));
  // …and its value at each second of the current minute, for the probes drawn after the minute.
  const backlogAt = models.map((m) => m.versions.map(() => new Float64Array(60)));
  // Per replica: requests that reached it in each 15-s slot of the current minute.
  const slotCounts = fleet.replicas.map(() => new Float64Array(4));
  // Per (model, tenant pair, version): label cumulative weights (tenant mix × version shift).
  const labelCum = new Map<string, Float64Array>();
  const labelsFor = (mi: number, pair: number, vi: number): Float64Array => {
    const key = `${mi}.${pair}.${vi}`;
    let c = labelCum.get(key);
    if (!c) {
      const m = models[mi]!;
      const mix = pair < 0 ? m.labelMix : m.tenants[pair]!.labelMix;
      const shift = m.versions[vi]!.labelShift;
      c = cumulative(mix.map((p, k) => p * Math.exp(shift[k] ?? 0)));
      labelCum.set(key, c);
    }
    return c;
  };
  const prefix = `f${(seed >>> 0).toString(36)}`;
  // Constant pieces of the event lines. Names are generated from safe alphabets; check it, since
  // the lines are written without escaping.
  const SAFE = /^[A-Za-z0-9_.:-]+$/;
  const safe = (x: string): string => {
    if (!SAFE.test(x)) throw new Error(`fleet name needs escaping: ${JSON.stringify(x)}`);
    return x;
  };
  const versionPart = models.map((m) =>
    m.versions.map(
      (v) => `,"model":"${safe(m.name)}","model_version":"${safe(v.name)}","service_version":"${safe(m.serviceVersion)}","route_rule":"${safe(v.route)}"`,
    ),
  );
  const gpuLabels = fleet.replicas.map((r) => ({ gpu_uuid: r.gpuUuid, gpu_model: r.pool.gpuModel }));
  const restartLabels = fleet.replicas.map((r) => ({ model: models[r.model]!.name }));
  const replicaPart = fleet.replicas.map((r) => `,"node":"${safe(r.node)}","replica":"${safe(r.name)}","pool":"${safe(r.pool.name)}"`);
  for (const t of fleet.tenants) safe(t.name);
  for (const e of fleet.entries) safe(e.name);
  for (const m of models) for (const l of m.labels) safe(l);

  let events: string[] = [];
  let resources: ResourceSample[] = [];
  let minTs = Infinity;
  let maxTs = -Infinity;

  const isDown = (ri: number, t: number): Outage | null => {
    const list = outages[ri]!;
    for (let i = 0; i < list.length; i++) {
      const x = list[i]!;
      if (x.crashMs > t) break;
      if (t < x.upMs) return x;
    }
    return null;
  };
  const faultWindow = (ri: number, t: number): Outage | null => {
    const list = outages[ri]!;
    for (let i = 0; i < list.length; i++) {
      const x = list[i]!;
      if (x.crashMs - FAULT_WINDOW_MS > t) break;
      if (t < x.crashMs) return x;
    }
    return null;
  };

  const firstMinute = Math.floor(o.historyStartMs / MIN);
  const lastMinute = Math.ceil(o.endMs / MIN);

  for (let absMin = firstMinute; absMin < lastMinute; absMin++) {
    const minuteMs = absMin * MIN;
    const hour = hourOfDay(minuteMs + 30_000);
    const fleetFactor = fleetLoad(fleet, hour);
    for (const c of slotCounts) c.fill(0);

    for (let mi = 0; mi < models.length; mi++) {
      const m = models[mi]!;
      // Load noise: slow waves with random phases plus per-minute noise; error overdispersion.
      const rr = stream(seed, STREAM.rate, mi, absMin);
      const ph = stream(seed, STREAM.rate, mi, 0);
      const p1 = ph() * 2 * Math.PI;
      const p2 = ph() * 2 * Math.PI;
      const wave = 0.07 * (Math.sin((2 * Math.PI * absMin) / 37 + p1) + Math.sin((2 * Math.PI * absMin) / 11 + p2));
      const loadNoise = Math.exp(wave + 0.06 * normal(rr) - 0.005);
      // The error rate varies minute to minute (lognormal, σ = 0.6, mean 1): overdispersion.
      const errMult = Math.exp(0.6 * normal(rr) - 0.18);
      const modelDay = diurnal(hour, m.peakHourUtc, m.diurnalAmplitude);

      // Expected requests/s per tenant pair this minute, with bursts.
      const lam = new Float64Array(m.tenants.length);
      let lamTotal = 0;
      for (let p = 0; p < m.tenants.length; p++) {
        const tm = m.tenants[p]!;
        const t = fleet.tenants[tm.tenant]!;
        lam[p] =
          BASE_RATE_PER_S * scale * fleetFactor * m.share * m.rateNorm * tm.weight * modelDay * diurnal(hour, t.peakHourUtc, t.diurnalAmplitude) * loadNoise;
      }
      capBursts(
        lam,
        nz.bursts[mi]!.filter((b) => b.fromMs < minuteMs + MIN && b.toMs > minuteMs),
        m.tenants.map((t) => t.pinnedVersion),
      );
      for (let p = 0; p < lam.length; p++) lamTotal += lam[p]!;
      const tenantCum = cumulative(Array.from(lam));
      const canaryShare = m.versions[1]!.canaryShare;
      const lamV = m.versions.map(() => 0);
      for (let p = 0; p < lam.length; p++) {
        const tm = m.tenants[p]!;
        if (tm.pinnedVersion >= 0) lamV[tm.pinnedVersion]! += lam[p]!;
        else {
          lamV[0]! += lam[p]! * (1 - canaryShare);
          lamV[1]! += lam[p]! * canaryShare;
        }
      }
      const incs = incidentsByModel[mi]!.filter((x) => x.startMs < minuteMs + MIN && x.endMs > minuteMs);
      const blips = nz.blips[mi]!.filter((b) => b.fromMs < minuteMs + MIN && b.toMs > minuteMs);
      const traffic = stream(seed, STREAM.traffic, mi, absMin);
      let seq = 0;
      let extraSeq = 0;

      for (let s = 0; s < 60; s++) {
        const secMs = minuteMs + s * 1000;
        if (secMs < o.historyStartMs || secMs >= o.endMs) {
          // Outside the run: still draw this second's arrivals so that a run's numbers do not
          // depend on where it starts inside a minute.
          const n = poisson(traffic, lamTotal);
          for (let k = 0; k < n; k++) drawRequest(traffic, m);
          continue;
        }
        let surge = 1;
        for (const inc of incs) if (inc.kind === 'saturation' && secMs >= inc.startMs && secMs < inc.endMs) surge = inc.factor;

        // Queue state per version for this second.
        const queue = m.versions.map((v, vi) => {
          let up = 0;
          for (const ri of v.replicas) if (!isDown(ri, secMs)) up++;
          const cap = v.capacityPerReplica * scale * up;
          const lamEff = lamV[vi]! * surge;
          if (cap <= 0) {
            backlogAt[mi]![vi]![s] = backlog[mi]![vi]!;
            return { up, rho: 1, waitMs: 0, rejectP: 0 };
          }
          const maxBacklog = cap * m.maxQueueS;
          let b = backlog[mi]![vi]! + lamEff - cap;
          b = clamp(b, 0, maxBacklog);
          backlog[mi]![vi] = b;
          backlogAt[mi]![vi]![s] = b;
          const rejectP = b >= maxBacklog && lamEff > cap ? 1 - cap / lamEff : 0;
          return { up, rho: lamEff / cap, waitMs: (b / cap) * 1000, rejectP };
        });

        const n = poisson(traffic, lamTotal);
        for (let k = 0; k < n; k++) {
          const d = drawRequest(traffic, m);
          emit(
            d,
            mi,
            secMs + Math.floor(d.offsetMs),
            `${prefix}-${mi.toString(36)}-${absMin.toString(36)}-${(seq++).toString(36)}`,
            tenantCum,
            -1,
            lam,
            surge,
            queue,
            incs,
            blips,
            errMult,
            false,
          );
        }
        if (surge > 1) {
          // The surge's extra arrivals come from the incident's own stream.
          const inc = incs.find((x) => x.kind === 'saturation')!;
          const ir = incidentRng.get(inc)!;
          const nx = poisson(ir, lamTotal * (surge - 1));
          for (let k = 0; k < nx; k++) {
            const d = drawRequest(ir, m);
            emit(
              d,
              mi,
              secMs + Math.floor(d.offsetMs),
              `${prefix}-${mi.toString(36)}-${absMin.toString(36)}-x${(extraSeq++).toString(36)}`,
              tenantCum,
              -1,
              lam,
              surge,
              queue,
              incs,
              blips,
              errMult,
              false,
            );
          }
        }
      }

      // Golden probes: one per version per minute, at a seeded second.
      m.versions.forEach((v, vi) => {
        const pr = stream(seed, STREAM.probe, mi * 8 + vi, absMin);
        const at = minuteMs + Math.floor(pr() * 60) * 1000;
        const d = drawRequest(pr, m);
        if (at < o.historyStartMs || at >= o.endMs) return;
        let surge = 1;
        for (const inc of incs) if (inc.kind === 'saturation' && at >= inc.startMs && at < inc.endMs) surge = inc.factor;
        const queue = m.versions.map((x, k) => {
          let up = 0;
          for (const ri of x.replicas) if (!isDown(ri, at)) up++;
          const cap = x.capacityPerReplica * scale * up;
          const b = backlogAt[mi]![k]![Math.floor((at - minuteMs) / 1000)]!;
          return { up, rho: cap > 0 ? (lamV[k]! * surge) / cap : 1, waitMs: cap > 0 ? (b / cap) * 1000 : 0, rejectP: 0 };
        });
        emit(d, mi, at, `${prefix}-p${mi.toString(36)}.${vi}-${absMin.toString(36)}`, tenantCum, vi, lam, surge, queue, incs, blips, errMult, true);
      });
    }

    // Resource samples for the minute's four 15-s slots.
    const rs = stream(seed, STREAM.resource, absMin);
    for (let slot = 0; slot < 4; slot++) {
      // A sample reports the 15 s that end at its time (never a request that has not arrived yet).
      const slotMs = minuteMs + (slot + 1) * SLOT_MS;
      const utilByReplica = new Float64Array(fleet.replicas.length);
      fleet.replicas.forEach((rep, ri) => {
        const m = models[rep.model]!;
        const v = m.versions[rep.version]!;
        const zu = normal(rs);
        const zm = normal(rs);
        const ts = slotMs + nodeOffsetMs(rep.node);
        if (ts < o.historyStartMs || ts >= o.endMs) return;
        const rho = slotCounts[ri]![slot]! / Math.max(1e-9, v.capacityPerReplica * scale * 15);
        const down = isDown(ri, ts);
        const util = down ? 0 : clamp(0.02 + 0.93 * rho + 0.025 * zu, 0, 1);
        utilByReplica[ri] = util;
        const total = rep.pool.gpuMemoryBytes;
        let used: number;
        if (down) used = 0.35 * GIB;
        else {
          const f = m.type === 'generative' ? clamp(0.12 + 0.75 * rho + 0.04 * zm, 0.05, 1) : clamp(0.15 + 0.6 * rho + 0.03 * zm, 0.05, 1);
          used = rep.baseMemoryBytes + rep.loadMemoryBytes * f;
          for (const inc of incidentsByModel[rep.model]!) {
            if (inc.kind === 'gpu_memory_creep' && inc.replica === ri && ts >= inc.startMs && ts < inc.crashesMs[0]!) {
              // Linear from the normal level to the target share of the card at the restart.
              const p = (ts - inc.startMs) / (inc.crashesMs[0]! - inc.startMs);
              used = (1 - p) * used + p * inc.share * total;
            }
          }
          used = Math.min(total, used);
        }
        const labels = gpuLabels[ri]!;
        const node = rep.node;
        const replica = rep.name;
        const gpu = rep.gpu;
        const pool = rep.pool.name;
        resources.push(
          { ts, node, replica, gpu, pool, metric: 'gpu_utilization_ratio', labels, value: r3(util), simulated: true },
          { ts, node, replica, gpu, pool, metric: 'gpu_memory_used_bytes', labels, value: Math.round(used), simulated: true },
          { ts, node, replica, gpu, pool, metric: 'gpu_memory_total_bytes', labels, value: total, simulated: true },
          {
            ts,
            node,
            replica,
            pool,
            metric: 'replica_restarts_total',
            labels: restartLabels[ri]!,
            value: rep.restartsBefore + countBefore(crashTimes[ri]!, ts, o.historyStartMs),
            simulated: true,
          },
        );
      });
      for (const node of fleet.nodes) {
        const z = normal(rs);
        const ts = slotMs + nodeOffsetMs(node.name);
        if (ts < o.historyStartMs || ts >= o.endMs) continue;
        let u = 0;
        for (const ri of node.replicas) u += utilByReplica[ri]!;
        resources.push({
          ts,
          node: node.name,
          pool: node.pool.name,
          metric: 'cpu_utilization_ratio',
          labels: {},
          value: r3(clamp(0.05 + 0.07 * u + 0.02 * z, 0.01, 1)),
          simulated: true,
        });
      }
    }

    if (events.length >= o.batchRows) {
      yield { events, resources, minTsMs: minTs, maxTsMs: maxTs };
      events = [];
      resources = [];
      minTs = Infinity;
      maxTs = -Infinity;
    }
  }
  if (events.length > 0 || resources.length > 0) yield { events, resources, minTsMs: events.length ? minTs : NaN, maxTsMs: events.length ? maxTs : NaN };

  // ---------- one request ----------

  /** One request: `pair` −1 and `fixedVersion` for a probe; otherwise routed by the draws. */
  function emit(
    d: Draws,
    mi: number,
    ts: number,
    requestId: string,
    tenantCum: Float64Array,
    fixedVersion: number,
    lam: Float64Array,
    surge: number,
    queue: { up: number; rho: number; waitMs: number; rejectP: number }[],
    incs: readonly Incident[],
    blips: readonly Blip[],
    errMult: number,
    probe: boolean,
  ): void {
    const m = models[mi]!;
    const pair = probe ? -1 : pickCumulative(tenantCum, d.pairU);
    const tm: TenantModel | null = pair >= 0 ? m.tenants[pair]! : null;
    const vi = probe ? fixedVersion : tm!.pinnedVersion >= 0 ? tm!.pinnedVersion : d.versionU < m.versions[1]!.canaryShare ? 1 : 0;
    const v = m.versions[vi]!;
    const tenant = tm ? fleet.tenants[tm.tenant]! : null;
    const ei = tenant ? tenant.entries[pickCumulative(tenant.entryCum, d.entryU)]! : 0;
    const entry = fleet.entries[ei]!;
    const q = queue[vi]!;

    // Routing to a replica: the drawn one, or the next one up when it is down. For the first
    // seconds after a crash the balancer has not noticed: requests still go there and fail.
    let ri = -1;
    let deadRoute = false;
    const n = v.replicas.length;
    const first = Math.floor(d.replicaU * n);
    const drawn = v.replicas[first]!;
    const drawnDown = isDown(drawn, ts);
    if (drawnDown && ts - drawnDown.crashMs < DETECT_MS) {
      ri = drawn;
      deadRoute = true;
    } else {
      for (let k = 0; k < n; k++) {
        const cand = v.replicas[(first + k) % n]!;
        if (!isDown(cand, ts)) {
          ri = cand;
          break;
        }
      }
    }
    const rep: Replica | null = ri >= 0 ? fleet.replicas[ri]! : null;

    // Which incidents touch this request.
    const hits: Incident[] = [];
    for (const inc of incs) {
      if (ts < inc.startMs || ts >= inc.endMs) continue;
      if (inc.version >= 0 && inc.version !== vi) continue;
      if (inc.tenant >= 0 && (!tm || tm.tenant !== inc.tenant)) continue;
      if (inc.entry >= 0 && (probe || inc.entry !== ei)) continue;
      if (inc.replica >= 0 && inc.replica !== ri && inc.kind !== 'replica_restarts') continue;
      hits.push(inc);
    }

    let status: Status = 'ok';
    let errorType: ErrorType | undefined;
    // Rate limiting at the tenant's quota (before any replica).
    if (tm) {
      const rate = lam[pair]! * surge;
      const quota = tm.quotaPerS * scale;
      if (rate > quota && d.rateLimitU < 1 - quota / rate) status = 'rate_limited';
    }
    if (status === 'ok' && q.rejectP > 0 && d.rejectU < q.rejectP) status = 'rejected';
    if (status === 'ok' && (!rep || deadRoute)) {
      status = 'error';
      errorType = 'replica_fault';
    }

    // Latencies as drawn (model side scaled by the version, load, blips and incidents).
    let latencyMult = v.latencyFactor;
    let blipErr = 0;
    let blipType: ErrorType = 'internal';
    for (const b of blips) {
      if (ts < b.fromMs || ts >= b.toMs || b.version !== vi || (b.replica >= 0 && b.replica !== ri)) continue;
      blipErr = Math.max(blipErr, b.errorRate);
      blipType = b.errorType;
      latencyMult *= b.latencyFactor;
    }
    // Slowdowns: added milliseconds on a classifier or ranker (whose own exec is a small part of
    // its total); on a generative model, a slower prefill and slower tokens.
    let extraExecMs = 0;
    let prefillMult = 1;
    let tpotMult = 1;
    const stageExtra = { ingress_ms: 0, queue_ms: 0, batch_ms: 0, post_ms: 0 };
    let forcedError: ErrorType | null = null;
    let forcedTimeout = false;
    let label = -1;
    let logitDrop = 0;
    let scoreShift = 0;
    let itemsFactor = 1;
    let outFactor = 1;
    let forceEmpty = false;
    let forceRefuse = false;
    let forceFormatFail = false;
    let goldenPass: boolean | null = null;
    for (const inc of hits) {
      const ir = incidentRng.get(inc)!;
      switch (inc.kind) {
        case 'latency_tail':
          if (ir() < inc.share) {
            if (m.type !== 'generative') extraExecMs += inc.delta * lognormal(ir, 1, 0.3);
            else {
              prefillMult *= inc.factor;
              tpotMult *= Math.sqrt(inc.factor);
            }
          }
          break;
        case 'error_slice':
          if (ir() < inc.share) forcedError = inc.errorType;
          break;
        case 'timeout_slice':
          if (ir() < inc.share) forcedTimeout = true;
          break;
        case 'slow_replica':
          latencyMult *= inc.factor;
          break;
        case 'saturation':
          latencyMult *= 1.15;
          break;
        case 'gpu_memory_creep':
          // Out of memory in the last tenth of the creep, before the restart.
          if (ts < inc.crashesMs[0]! && (ts - inc.startMs) / (inc.crashesMs[0]! - inc.startMs) > 0.9 && ir() < 0.25) forcedError = 'resource_exhausted';
          break;
        case 'replica_restarts': {
          const w = rep && inc.replica === ri ? faultWindow(ri, ts) : null;
          if (w && w.incident === inc && ir() < 0.7) forcedError = 'replica_fault';
          break;
        }
        case 'output_shift':
          if (m.type === 'classifier') {
            if (ir() < inc.share) label = Number(inc.variant);
          } else if (m.type === 'ranker') {
            scoreShift += inc.delta * m.scoreSd;
            itemsFactor *= inc.factor;
          } else outFactor *= inc.factor;
          break;
        case 'empty_results':
          if (ir() < inc.share) forceEmpty = true;
          break;
        case 'refusal_format':
          if (inc.variant !== 'format' && ir() < inc.share) forceRefuse = true;
          if (inc.variant === 'format' && ir() < inc.share) forceFormatFail = true;
          if (inc.variant === 'both' && ir() < inc.delta) forceFormatFail = true;
          break;
        case 'golden_failures':
          if (probe) goldenPass = ir() < inc.share;
          break;
        case 'canary_regression':
          if (inc.share > 0 && ir() < inc.share) forcedError = inc.errorType;
          if (inc.factor > 1) {
            if (m.type !== 'generative') extraExecMs += inc.delta * lognormal(ir, 1, 0.3);
            else {
              prefillMult *= inc.factor;
              tpotMult *= inc.factor;
            }
          }
          break;
        case 'stage_regression':
          stageExtra[inc.stage] += inc.delta * lognormal(ir, 1, 0.35);
          break;
        case 'confidence_drop':
          logitDrop += inc.delta;
          break;
      }
    }

    // Errors: base (overdispersed), the tenant's bad input, blips, a crash's fault window.
    if (status === 'ok') {
      const pBase = m.baseErrorRate * v.errorFactor * errMult;
      const pBad = tm ? tm.badInputRate : 0;
      const fault = rep ? faultWindow(ri, ts) : null;
      if (forcedError) {
        status = 'error';
        errorType = forcedError;
      } else if (fault && fault.incident === null && d.errorU < 0.7) {
        status = 'error';
        errorType = 'replica_fault';
      } else if (d.errorU < pBase) {
        status = 'error';
        errorType = m.errorMix[pickCumulative(m.errorMixCum, d.errorTypeU)]!.type;
      } else if (d.errorU < pBase + pBad) {
        status = 'error';
        errorType = 'bad_input';
      } else if (d.errorU < pBase + pBad + blipErr) {
        status = 'error';
        errorType = blipType;
      } else if (forcedTimeout || d.errorU > 1 - BASE_TIMEOUT_RATE) status = 'timeout';
    }

    const rho = q.rho;
    const ingress = entry.ingressMs * Math.exp(entry.ingressSigma * d.zIngress) + stageExtra.ingress_ms;
    const batchEntry = entry.tier === 'batch' ? 1.3 : 1;
    // Queueing grows as 1 / (1 − utilisation) (the M/M/1 shape), anchored so the median is the
    // model's queueMs at the version's typical utilisation; lognormal spread; plus any backlog.
    const queueMs =
      (m.queueMs * batchEntry * Math.exp(0.7 * d.zQueue) * (1 - v.typicalUtilisation)) / (1 - Math.min(rho, 0.95)) + q.waitMs + stageExtra.queue_ms;
    const batchMs = m.batchMs * (0.5 + Math.min(rho, 1)) * Math.exp(0.4 * d.zBatch) + stageExtra.batch_ms;
    const postMs = m.postMs * Math.exp(0.5 * d.zPost) + stageExtra.post_ms;
    const stall = d.outlierU < OUTLIER_RATE ? 6 + 9 * d.outlierF : 1;
    const load = 1 + 0.2 * Math.min(rho, 1.2);
    const inputFactor = entry.inputFactor;

    // The line is written directly (every name is checked to need no JSON escaping, above):
    // about 3× cheaper than building an object for JSON.stringify, and no garbage per field.
    let line = `{"ts":${ts},"request_id":"${requestId}"${versionPart[mi]![vi]}`;
    if (tenant) line += `,"tenant":"${tenant.name}"`;
    if (probe) line += ',"probe":true';
    else line += `,"entry":"${entry.name}","service_tier":"${entry.tier ?? tenant!.tier}"`;

    if (status === 'rate_limited') {
      line += `,"ingress_ms":${ms3(ingress)},"total_ms":${ms3(ingress + 0.3)},"status":"rate_limited","http_status":429}`;
      return push(line, ts, -1);
    }
    if (rep) line += replicaPart[ri]!;
    if (status === 'rejected') {
      const queueRej = 0.2 + 0.5 * d.outlierF;
      line += `,"ingress_ms":${ms3(ingress)},"queue_ms":${ms3(queueRej)},"total_ms":${ms3(ingress + queueRej + 0.2)},"status":"rejected","http_status":503}`;
      return push(line, ts, ri);
    }

    // Model-side work.
    let execMs: number;
    let ttft = 0;
    let tpot = 0;
    let inputTokens: number;
    let outputTokens = 0;
    let finish = 'stop';
    if (m.type === 'generative') {
      inputTokens = Math.max(8, Math.min(32_000, Math.round(m.inputTokens * inputFactor * Math.exp(0.7 * d.zIn))));
      outputTokens = Math.round(m.outputTokens * (tm ? tm.outputFactor : 1) * v.outputFactor * outFactor * Math.exp(m.outputSigma * d.zOut));
      outputTokens = Math.max(1, outputTokens);
      if (outputTokens >= m.maxTokens) {
        outputTokens = m.maxTokens;
        finish = 'length';
      }
      const prefill = m.prefillMs * latencyMult * prefillMult * Math.sqrt(inputTokens / m.inputTokens) * Math.exp(0.25 * d.zExec) * stall;
      tpot = m.tpotMs * latencyMult * tpotMult * load * Math.exp(0.15 * d.zX);
      ttft = batchMs + prefill;
      execMs = prefill + tpot * outputTokens;
    } else {
      inputTokens = Math.max(1, Math.round(m.inputTokens * inputFactor * Math.exp(0.6 * d.zIn)));
      const size = m.type === 'ranker' ? Math.max(1, Math.round(m.items * Math.exp(0.3 * d.zX))) / m.items : inputTokens / m.inputTokens;
      execMs = m.execMs * latencyMult * load * Math.pow(size, 0.3) * Math.exp(m.execSigma * d.zExec) * stall + extraExecMs;
    }
    const batchSize = Math.max(1, Math.min(m.maxBatch, Math.round(1 + Math.min(rho, 1) * m.maxBatch * 0.5 * Math.exp(0.3 * d.zBatch))));
    line += `,"ingress_ms":${ms3(ingress)},"queue_ms":${ms3(queueMs)},"batch_ms":${ms3(batchMs)}`;
    const golden = probe ? `,"attributes":{"golden_set":"${m.name}-golden","golden_pass":"` : '';

    if (status === 'error') {
      // An error ends the request early: bad input at validation, a dependency at its timeout,
      // anything else part-way through the work.
      const dep = m.type === 'generative' ? 5_000 : m.type === 'ranker' ? 500 : 200;
      const work = errorType === 'bad_input' ? 0.5 + 0.5 * d.outlierF : errorType === 'dependency_timeout' ? dep : execMs * (0.1 + 0.9 * d.outlierF);
      line += `,"exec_ms":${ms3(work)},"post_ms":0.2,"total_ms":${ms3(ingress + queueMs + batchMs + work + 0.2)},"batch_size":${batchSize},"status":"error","error_type":"${errorType}","http_status":${HTTP[errorType!]},"input_tokens":${inputTokens}`;
      if (probe) line += golden + 'false"}';
      return push(line + '}', ts, ri);
    }
    const total = ingress + queueMs + batchMs + execMs + postMs;
    if (status === 'timeout' || total > m.timeoutMs) {
      const spent = ingress + queueMs + batchMs;
      line += `,"exec_ms":${ms3(Math.max(0, m.timeoutMs - spent))},"total_ms":${ms3(Math.max(m.timeoutMs, spent))},"batch_size":${batchSize},"status":"timeout","http_status":504,"input_tokens":${inputTokens}`;
      if (probe) line += golden + 'false"}';
      return push(line + '}', ts, ri);
    }
    line += `,"exec_ms":${ms3(execMs)},"post_ms":${ms3(postMs)},"total_ms":${ms3(total)}`;
    if (m.type === 'generative')
      line += `,"ttft_ms":${ms3(ttft)},"tpot_ms":${ms3(tpot)},"batch_size":${batchSize},"batch_tokens":${batchSize * Math.round(m.inputTokens + m.outputTokens)}`;
    else line += `,"batch_size":${batchSize}`;
    line += `,"status":"ok","http_status":200,"input_tokens":${inputTokens}`;

    if (m.type === 'classifier') {
      const k = m.labels.length;
      if (label < 0) label = pickCumulative(labelsFor(mi, pair, vi), d.outU);
      const logit = m.confidenceLogit + v.confidenceShift - logitDrop + 0.8 * d.zOut;
      line += `,"label":"${m.labels[label]}","confidence":${r4(1 / k + (1 - 1 / k) * sigmoid(logit))}`;
    } else if (m.type === 'ranker') {
      const requested = Math.max(1, Math.round(m.items * Math.exp(0.3 * d.zX)));
      const empty = forceEmpty || d.outU < m.emptyRate;
      const score = r4(m.scoreMean + (tm ? tm.scoreOffset : 0) + v.scoreShift + scoreShift + m.scoreSd * d.zOut);
      line += `,"score":${score},"output_length":${empty ? 0 : Math.max(1, Math.round(requested * itemsFactor))},"empty":${empty}`;
    } else {
      const refusalRate = m.refusalRate * (tm ? tm.refusalFactor : 1) * v.refusalFactor;
      const refused = forceRefuse || d.outU < refusalRate;
      const empty = !refused && (forceEmpty || (d.outU >= refusalRate && d.outU < refusalRate + m.emptyRate));
      if (refused) {
        outputTokens = 12 + Math.floor(40 * d.outlierF);
        finish = d.outU < refusalRate * 0.3 ? 'content_filter' : 'stop';
      }
      if (empty) {
        outputTokens = 0;
        finish = 'stop';
      }
      const formatOk = !(forceFormatFail || d.formatU < m.formatFailRate * (tm ? tm.formatFailFactor : 1));
      line += `,"output_tokens":${outputTokens},"finish_reason":"${finish}","empty":${empty},"refused":${refused},"format_ok":${formatOk}`;
    }
    if (probe) line += `${golden}${goldenPass ?? d.formatU >= 1 - PROBE_PASS_RATE}"}`;
    push(line + '}', ts, ri);
  }

  function push(line: string, ts: number, ri: number): void {
    // Reading a character flattens the concatenation tree into one string now, while its ~50
    // pieces are still young garbage; kept as a tree, every piece would be promoted with the
    // batch (measured: half the CPU time of a run went to the garbage collector).
    line.charCodeAt(0);
    events.push(line);
    if (ts < minTs) minTs = ts;
    if (ts > maxTs) maxTs = ts;
    if (ri >= 0) slotCounts[ri]![Math.floor((ts % MIN) / SLOT_MS)]! += 1;
  }
}

/** Every traffic draw of one request, always the same count whatever happens to it. */
interface Draws {
  offsetMs: number;
  pairU: number;
  versionU: number;
  entryU: number;
  replicaU: number;
  rateLimitU: number;
  rejectU: number;
  errorU: number;
  errorTypeU: number;
  outU: number;
  outlierU: number;
  outlierF: number;
  formatU: number;
  zIngress: number;
  zQueue: number;
  zBatch: number;
  zExec: number;
  zPost: number;
  zIn: number;
  zOut: number;
  zX: number;
}

const scratch: Draws = {
  offsetMs: 0,
  pairU: 0,
  versionU: 0,
  entryU: 0,
  replicaU: 0,
  rateLimitU: 0,
  rejectU: 0,
  errorU: 0,
  errorTypeU: 0,
  outU: 0,
  outlierU: 0,
  outlierF: 0,
  formatU: 0,
  zIngress: 0,
  zQueue: 0,
  zBatch: 0,
  zExec: 0,
  zPost: 0,
  zIn: 0,
  zOut: 0,
  zX: 0,
};

/** Draws one request into a shared scratch record (read before the next call: no garbage per request). */
function drawRequest(r: Random, m: Model): Draws {
  const d = scratch;
  d.offsetMs = r() * 1000;
  d.pairU = r();
  d.versionU = r();
  d.entryU = r();
  d.replicaU = r();
  d.rateLimitU = r();
  d.rejectU = r();
  d.errorU = r();
  d.errorTypeU = r();
  d.outU = r();
  d.outlierU = r();
  d.outlierF = r();
  d.formatU = r();
  d.zIngress = normal(r);
  d.zQueue = normal(r);
  d.zBatch = normal(r);
  d.zExec = normal(r);
  d.zPost = normal(r);
  d.zIn = normal(r);
  d.zOut = normal(r);
  d.zX = m.type === 'classifier' ? 0 : normal(r);
  return d;
}

/** Node collectors do not tick in lockstep: each node's samples sit a fixed 0–900 ms after the slot. */
function nodeOffsetMs(node: string): number {
  let h = 0;
  for (let i = 0; i < node.length; i++) h = (h * 31 + node.charCodeAt(i)) >>> 0;
  return (h % 10) * 100;
}

/** Crashes at or before ts since the run began. */
function countBefore(crashes: readonly number[], ts: number, fromMs: number): number {
  let n = 0;
  for (const c of crashes) if (c >= fromMs && c <= ts) n++;
  return n;
}
