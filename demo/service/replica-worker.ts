/**
 * One replica: a worker thread holding every model version. It runs one batch at a time and
 * measures exec_ms around the model's predict with its own `performance.now()` (a duration, so
 * the worker's different time origin does not matter). Injected incidents happen here, on top of
 * the real work: slowness is a busy wait proportional to the measured predict time, a regression
 * also flips a seeded share of the labels, a fault throws.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { createClassifier } from '../model/index.ts';
import type { Classifier, ModelVersion, Prediction } from '../model/index.ts';
import { createRandom } from '../model/index.ts';
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

/**
 * Keeps the replica busy until `untilMs`, so exec takes factor × the measured predict time.
 * Measured alternatives on a loaded 2-core machine (factor 3, median exec ratio slow / others):
 * predicting the batch 3 times gave 1.5–2.2 (the repeats run on warm caches); sleeping in
 * `Atomics.wait` gave 3.2–3.7 at 4 ms batches and up to 14 under heavy load (late wake-ups);
 * spinning on short batches gave 2.7–3.3.
 */
function busyWaitUntil(untilMs: number): void {
  while (performance.now() < untilMs) {
    // spin: the replica is occupied, as a slow device would keep it
  }
}

function predict(version: ModelVersion, texts: string[]): Prediction[] {
  const model = models.get(version);
  if (!model) throw new Error(`replica ${data.replica} has no model ${version}`);
  const startMs = performance.now();
  let predictions = model.predict(texts);
  const baseMs = performance.now() - startMs;
  const regression = config.regression[version];
  const factor = config.slowFactor * (regression?.slowdownFactor ?? 1);
  if (factor > 1) busyWaitUntil(startMs + baseMs * factor);
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
