/**
 * One replica: a worker thread holding every model version. It runs one batch at a time and
 * measures exec_ms around the model's predict with its own `performance.now()` (a duration, so
 * the worker's different time origin does not matter). Injected incidents happen here, on top of
 * the real work: slowness holds the replica for (factor − 1) × the measured predict time, a regression
 * also flips a seeded share of the labels, a fault throws.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { createClassifier } from '../model/index.ts';
import type { Classifier, ModelVersion, Prediction } from '../model/index.ts';
import { createRandom } from '../model/random.ts';
import type { FromReplica, ReplicaConfig, ReplicaWorkerData, ToReplica } from './replica-protocol.ts';

const data = workerData as ReplicaWorkerData;
const port = parentPort;
if (!port) throw new Error('replica-worker.ts must run as a worker thread');

const models = new Map<ModelVersion, Classifier>();
for (const params of data.models) models.set(params.version, createClassifier(params));
let config: ReplicaConfig = data.config;
const random = createRandom(data.seed);

function flip(p: Prediction): Prediction {
  return { label: p.label === 'spam' ? 'ham' : 'spam', confidence: p.confidence };
}

const sleeper = new Int32Array(new SharedArrayBuffer(4));
/**
 * Holds the replica until `untilMs`, as a slow device would: the thread is occupied (it takes no
 * other batch) but blocked in `Atomics.wait` rather than spinning. A spinning replica steals the CPU
 * the healthy replicas need on a small machine, and on a loaded one a preempted spin overshoots its
 * deadline by a whole scheduler slice (measured: 4–8× instead of 3× at load 12 on 2 cores).
 */
function occupyUntil(untilMs: number): void {
  for (let leftMs = untilMs - performance.now(); leftMs > 0; leftMs = untilMs - performance.now()) Atomics.wait(sleeper, 0, 0, leftMs);
}

function predict(version: ModelVersion, texts: string[]): Prediction[] {
  const model = models.get(version);
  if (!model) throw new Error(`replica ${data.replica} has no model ${version}`);
  const startMs = performance.now();
  let predictions = model.predict(texts);
  const baseMs = performance.now() - startMs;
  const regression = config.regression[version];
  const factor = config.slowFactor * (regression?.slowdownFactor ?? 1);
  if (factor > 1) occupyUntil(startMs + baseMs * factor);
  if (regression && regression.flipRate > 0) predictions = predictions.map((p) => (random() < regression.flipRate ? flip(p) : p));
  if (config.faultRate > 0 && random() < config.faultRate) throw new Error(`replica ${data.replica}: injected fault`);
  return predictions;
}

port.on('message', (msg: ToReplica) => {
  if (msg.type === 'config') {
    config = msg.config;
    return;
  }
  const startMs = performance.now();
  let reply: FromReplica;
  try {
    const predictions = predict(msg.version, msg.texts);
    reply = { type: 'result', batchId: msg.batchId, predictions, execMs: performance.now() - startMs };
  } catch (err) {
    reply = { type: 'failed', batchId: msg.batchId, message: (err as Error).message, execMs: performance.now() - startMs };
  }
  port.postMessage(reply);
});

port.postMessage({ type: 'ready' } satisfies FromReplica);
