/**
 * Runs a schedule: at each incident's start it calls `actions.begin`, at its end `actions.end`,
 * and rewrites the ground-truth file with the actual times. With `cycleMs` the schedule repeats
 * (ids get `#2`, `#3`, …). `stop()` ends whatever is active. Time is injected (`now`), and the
 * check runs every `tickMs`, so transitions happen within a tick of their planned time.
 */
import { writeGroundTruth } from './ground-truth.ts';
import type { GroundTruth, GroundTruthIncident } from './ground-truth.ts';
import type { IncidentSpec } from './incidents.ts';

export interface IncidentActions {
  begin(incident: IncidentSpec): void | Promise<void>;
  end(incident: IncidentSpec): void | Promise<void>;
}

export interface ScenarioOptions {
  name: string;
  schedule: readonly IncidentSpec[];
  actions: IncidentActions;
  /** Ground-truth JSON file; not written when absent. */
  file?: string;
  /** Repeat the schedule every this many ms (live demo); once when absent. */
  cycleMs?: number;
  /** Incidents already in the history (backfill), listed first in the file. */
  history?: readonly GroundTruthIncident[];
  now?: () => number;
  tickMs?: number;
  /** Told about each transition (for a one-line log). */
  onTransition?: (what: 'begin' | 'end', incident: IncidentSpec, atMs: number) => void;
  /** Told when an action throws (the scenario carries on). */
  onError?: (incident: IncidentSpec, err: unknown) => void;
}

interface Instance {
  spec: IncidentSpec;
  startMs: number;
  endMs: number;
  began: number | null;
  ended: number | null;
}

export interface Scenario {
  start(): void;
  /** Ends active incidents, writes the file, stops the clock. Idempotent. */
  stop(): Promise<void>;
  groundTruth(): GroundTruth;
  /** Incidents active now. */
  active(): IncidentSpec[];
  /** The next incident to start, if any. */
  next(): { spec: IncidentSpec; startMs: number } | undefined;
}

const iso = (ms: number): string => new Date(ms).toISOString();

export function createScenario(options: ScenarioOptions): Scenario {
  const now = options.now ?? Date.now;
  let startedMs = 0;
  let cycle = 0;
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  const instances: Instance[] = [];
  let chain: Promise<void> = Promise.resolve();

  const addCycle = (k: number): void => {
    const base = startedMs + k * (options.cycleMs ?? 0);
    for (const spec of options.schedule) {
      const s = k === 0 ? spec : { ...spec, id: `${spec.id}#${k + 1}` };
      instances.push({ spec: s, startMs: base + spec.startOffsetMs, endMs: base + spec.startOffsetMs + spec.durationMs, began: null, ended: null });
    }
  };

  const truth = (): GroundTruth => ({
    scenario: options.name,
    started_at: iso(startedMs),
    written_at: iso(now()),
    incidents: [
      ...(options.history ?? []),
      ...instances.map((i): GroundTruthIncident => ({
        id: i.spec.id,
        kind: i.spec.kind,
        title: i.spec.title,
        where: i.spec.where,
        expect: i.spec.expect,
        source: 'live',
        planned_start: iso(i.startMs),
        planned_end: iso(i.endMs),
        start: i.began === null ? null : iso(i.began),
        end: i.ended === null ? null : iso(i.ended),
      })),
    ],
  });
  const write = (): void => {
    if (options.file) writeGroundTruth(options.file, truth());
  };

  const run = (what: 'begin' | 'end', i: Instance, atMs: number): void => {
    // Actions run one after another, in schedule order, even when one is async.
    chain = chain.then(async () => {
      try {
        await options.actions[what](i.spec);
      } catch (err) {
        options.onError?.(i.spec, err);
      }
    });
    options.onTransition?.(what, i.spec, atMs);
  };

  const tick = (): void => {
    const t = now();
    if (options.cycleMs && t >= startedMs + (cycle + 1) * options.cycleMs) addCycle(++cycle);
    let changed = false;
    for (const i of instances) {
      if (i.began === null && t >= i.startMs && t < i.endMs) {
        i.began = t;
        run('begin', i, t);
        changed = true;
      }
      if (i.began !== null && i.ended === null && t >= i.endMs) {
        i.ended = t;
        run('end', i, t);
        changed = true;
      }
    }
    if (changed) write();
  };

  return {
    start() {
      if (timer || stopped) return;
      startedMs = now();
      addCycle(0);
      write();
      tick();
      timer = setInterval(tick, options.tickMs ?? 250);
      timer.unref();
    },
    async stop() {
      if (stopped) return;
      stopped = true;
      if (timer) clearInterval(timer);
      timer = undefined;
      const t = now();
      for (const i of instances) {
        if (i.began !== null && i.ended === null) {
          i.ended = t;
          run('end', i, t);
        }
      }
      await chain;
      if (startedMs > 0) write();
    },
    groundTruth: truth,
    active: () => instances.filter((i) => i.began !== null && i.ended === null).map((i) => i.spec),
    next() {
      const n = instances.filter((i) => i.began === null && i.startMs > now()).sort((a, b) => a.startMs - b.startMs)[0];
      return n && { spec: n.spec, startMs: n.startMs };
    },
  };
}
