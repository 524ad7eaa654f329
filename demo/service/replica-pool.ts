/**
 * A pool of replica workers (`worker_threads`), each holding every model version.
 *
 * Scheduling: a replica runs one batch at a time. `acquire` reserves an idle replica, round-robin
 * among the idle ones (so with one batch in flight the least-busy choice and the rotation agree,
 * and every replica is used); `run` sends the batch and releases the replica when it answers.
 * When a replica is released, `onFree` listeners run so waiting batchers can start a batch.
 *
 * Faults: a batch the worker fails, and a batch in flight when a worker dies, reject with
 * `ReplicaFault`. A dead worker is replaced by a fresh, healthy one under the same name.
 */
import { Worker } from 'node:worker_threads';
import type { ModelParams, ModelVersion, Prediction } from '../model/index.ts';
import { workerEntry } from '../../src/ingest/index.ts';
import { HEALTHY_REPLICA } from './replica-protocol.ts';
import type { FromReplica, ReplicaConfig, ReplicaWorkerData, ToReplica } from './replica-protocol.ts';

export class ReplicaFault extends Error {
  override readonly name = 'ReplicaFault';
  constructor(
    message: string,
    /** Exec time spent before the fault, when the worker measured it. */
    readonly execMs?: number,
  ) {
    super(message);
  }
}

export interface BatchResult {
  predictions: Prediction[];
  /** Measured in the worker around predict. */
  execMs: number;
}

export interface ReplicaPoolOptions {
  count: number;
  /** Upper bound for `scaleOut` (default count + 3). */
  maxReplicas?: number;
  models: ModelParams[];
  /** Replica names are `${prefix}${i}`. */
  prefix?: string;
  seed?: number;
}

export interface ReplicaPool {
  /** The replicas, scaled-out ones included. */
  readonly names: readonly string[];
  start(): Promise<void>;
  acquire(): string | undefined;
  run(replica: string, version: ModelVersion, texts: string[]): Promise<BatchResult>;
  /** Releases a replica acquired but never run (e.g. a batch dropped at stop). */
  release(replica: string): void;
  onFree(listener: () => void): void;
  configure(replica: string, change: Partial<ReplicaConfig>): void;
  configureAll(change: Partial<ReplicaConfig>): void;
  config(replica: string): ReplicaConfig;
  /** Whether the replica's worker is up (false while a killed one restarts). */
  ready(replica: string): boolean;
  /** Terminates a replica's worker, as a crash would; it is replaced by a fresh one. */
  kill(replica: string): Promise<void>;
  /** Batches each replica has run (including failed ones). */
  batchCounts(): Record<string, number>;
  /**
   * Takes a replica out of the rotation (or puts it back): `acquire` skips a drained replica, so
   * new batches route around it; its batch in flight finishes. The last replica in rotation
   * cannot be drained.
   */
  drain(replica: string, drained: boolean): void;
  drained(replica: string): boolean;
  /** Starts one more replica (at most `maxReplicas`); resolves with its name once it is ready. */
  scaleOut(): Promise<string>;
  stop(): Promise<void>;
}

interface Inflight {
  batchId: number;
  resolve: (r: BatchResult) => void;
  reject: (e: Error) => void;
}

interface Replica {
  name: string;
  index: number;
  drained: boolean;
  worker: Worker | undefined;
  ready: boolean;
  busy: boolean;
  inflight: Inflight | undefined;
  config: ReplicaConfig;
  batches: number;
}

/** The worker's entry and how to start it: compiled code starts the compiled entry directly. */
const WORKER = workerEntry(import.meta.url, 'replica-worker');

export function createReplicaPool(options: ReplicaPoolOptions): ReplicaPool {
  const prefix = options.prefix ?? 'replica-';
  const seed = options.seed ?? 1;
  const newReplica = (index: number): Replica => ({
    name: `${prefix}${index}`,
    index,
    drained: false,
    worker: undefined,
    ready: false,
    busy: false,
    inflight: undefined,
    config: { ...HEALTHY_REPLICA, regression: {} },
    batches: 0,
  });
  const replicas: Replica[] = Array.from({ length: options.count }, (_, index) => newReplica(index));
  const maxReplicas = options.maxReplicas ?? options.count + 3;
  const byName = new Map(replicas.map((r) => [r.name, r]));
  const listeners: (() => void)[] = [];
  let nextBatchId = 1;
  let cursor = 0;
  let stopping = false;
  let spawns = 0;

  const get = (name: string): Replica => {
    const r = byName.get(name);
    if (!r) throw new Error(`unknown replica ${name}: expected one of ${replicas.map((x) => x.name).join(', ')}`);
    return r;
  };

  const free = (r: Replica): void => {
    r.busy = false;
    for (const l of listeners) l();
  };

  const spawn = (r: Replica): Promise<void> =>
    new Promise((resolve, reject) => {
      const data: ReplicaWorkerData = { replica: r.name, models: options.models, config: r.config, seed: seed * 1000 + r.index * 10 + spawns++ };
      const worker = new Worker(WORKER.entry, { ...WORKER.options, workerData: data });
      r.worker = worker;
      r.ready = false;
      worker.on('message', (msg: FromReplica) => {
        if (msg.type === 'ready') {
          r.ready = true;
          resolve();
          for (const l of listeners) l();
          return;
        }
        const inflight = r.inflight;
        if (!inflight || inflight.batchId !== msg.batchId) return;
        r.inflight = undefined;
        if (msg.type === 'result') inflight.resolve({ predictions: msg.predictions, execMs: msg.execMs });
        else inflight.reject(new ReplicaFault(msg.message, msg.execMs));
        free(r);
      });
      worker.on('error', (err) => {
        if (!r.ready) reject(err);
      });
      worker.on('exit', (code) => {
        if (r.worker !== worker) return;
        r.worker = undefined;
        r.ready = false;
        const inflight = r.inflight;
        r.inflight = undefined;
        inflight?.reject(new ReplicaFault(`replica ${r.name} exited (code ${code}) during a batch`));
        r.busy = false;
        // The replacement is a fresh replica: injected slowness and faults die with the old one;
        // a version regression is fleet-wide and stays.
        r.config = { ...r.config, slowFactor: 1, faultRate: 0 };
        if (!stopping) spawn(r).catch((err: unknown) => console.error(`replica ${r.name} failed to restart: ${(err as Error).message}`));
      });
    });

  const configure = (name: string, change: Partial<ReplicaConfig>): void => {
    const r = get(name);
    r.config = { ...r.config, ...change };
    r.worker?.postMessage({ type: 'config', config: r.config } satisfies ToReplica);
  };

  return {
    get names() {
      return replicas.map((r) => r.name);
    },
    async start() {
      await Promise.all(replicas.map(spawn));
    },
    acquire() {
      for (let k = 0; k < replicas.length; k++) {
        const r = replicas[(cursor + k) % replicas.length] as Replica;
        if (r.ready && !r.busy && !r.drained) {
          r.busy = true;
          cursor = (r.index + 1) % replicas.length;
          return r.name;
        }
      }
      return undefined;
    },
    run(name, version, texts) {
      const r = get(name);
      const worker = r.worker;
      if (!worker || !r.ready) {
        free(r);
        return Promise.reject(new ReplicaFault(`replica ${name} is not running`));
      }
      r.batches++;
      return new Promise<BatchResult>((resolve, reject) => {
        const batchId = nextBatchId++;
        r.inflight = { batchId, resolve, reject };
        worker.postMessage({ type: 'predict', batchId, version, texts } satisfies ToReplica);
      });
    },
    release(name) {
      free(get(name));
    },
    onFree(listener) {
      listeners.push(listener);
    },
    configure,
    configureAll(change) {
      for (const r of replicas) configure(r.name, change);
    },
    config: (name) => get(name).config,
    ready: (name) => get(name).ready,
    async kill(name) {
      await get(name).worker?.terminate();
    },
    batchCounts: () => Object.fromEntries(replicas.map((r) => [r.name, r.batches])),
    drain(name, drained) {
      const r = get(name);
      if (drained && !r.drained && replicas.filter((x) => !x.drained).length <= 1)
        throw new Error(`replica ${name} is the last one in rotation: scale out before draining it`);
      r.drained = drained;
      if (!drained) for (const l of listeners) l();
    },
    drained: (name) => get(name).drained,
    async scaleOut() {
      if (replicas.length >= maxReplicas) throw new Error(`already at ${maxReplicas} replicas, the most this pool runs`);
      const r = newReplica(replicas.length);
      // A new replica runs the fleet's current version regressions, like any other.
      r.config = { ...r.config, regression: { ...(replicas[0]?.config.regression ?? {}) } };
      replicas.push(r);
      byName.set(r.name, r);
      await spawn(r);
      return r.name;
    },
    async stop() {
      stopping = true;
      await Promise.all(replicas.map((r) => r.worker?.terminate()));
    },
  };
}
