/**
 * Training, caching and loading of the two model versions.
 *
 * Trained parameters are plain structured-cloneable objects (`ModelParams`), so the service can
 * train once in the main thread and hand them to every replica worker. They are cached as JSON under
 * `data/demo-models/` (git-ignored), keyed by version, corpus size, split seed and `TRAINING_REV`;
 * bump `TRAINING_REV` whenever tokenisation or training changes.
 */
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Classifier, ModelVersion } from './classifier.ts';
import { DEFAULT_SPLIT_SEED, loadDataset } from './corpus.ts';
import type { Message } from './corpus.ts';
import { createLogistic, trainLogistic } from './logistic.ts';
import type { LogisticParams } from './logistic.ts';
import { createNaiveBayes, trainNaiveBayes } from './naive-bayes.ts';
import type { NaiveBayesParams } from './naive-bayes.ts';

export type ModelParams = NaiveBayesParams | LogisticParams;

export const TRAINING_REV = 1;
/** data/demo-models at the package root (compiled code runs one level down, in dist/). */
export const DEFAULT_CACHE_DIR = join(
  dirname(fileURLToPath(import.meta.url)),
  ...(import.meta.url.endsWith('.js') ? ['..'] : []),
  '..',
  '..',
  'data',
  'demo-models',
);

export function trainModel(version: ModelVersion, train: readonly Message[]): ModelParams {
  return version === 'v1' ? trainNaiveBayes(train) : trainLogistic(train);
}

export function createClassifier(params: ModelParams): Classifier {
  return params.kind === 'naive_bayes' ? createNaiveBayes(params) : createLogistic(params);
}

export interface LoadModelOptions {
  /** Where to cache trained parameters; `null` disables the cache. */
  cacheDir?: string | null;
  seed?: number;
}

type CachedParams = (Omit<LogisticParams, 'weights'> & { weights: string }) | NaiveBayesParams;

function toJSON(params: ModelParams): string {
  const out: CachedParams =
    params.kind === 'logistic_hashed'
      ? { ...params, weights: Buffer.from(params.weights.buffer, params.weights.byteOffset, params.weights.byteLength).toString('base64') }
      : params;
  return JSON.stringify(out);
}

function fromJSON(text: string): ModelParams {
  const p = JSON.parse(text) as CachedParams;
  if (p.kind === 'naive_bayes') return p;
  const bytes = Buffer.from(p.weights, 'base64');
  const weights = new Float32Array(bytes.byteLength / 4);
  new Uint8Array(weights.buffer).set(bytes);
  return { ...p, weights };
}

/**
 * The trained parameters of one version: read from the cache, or trained on the seeded split
 * (v1 ≈ 0.3 s, v2 ≈ 2 s on one core) and written to it. A cache write is atomic (temp + rename),
 * so parallel test processes never read half a file.
 */
export function loadModel(version: ModelVersion, options: LoadModelOptions = {}): ModelParams {
  const seed = options.seed ?? DEFAULT_SPLIT_SEED;
  const dataset = loadDataset(seed);
  const cacheDir = options.cacheDir === undefined ? DEFAULT_CACHE_DIR : options.cacheDir;
  const file = cacheDir == null ? undefined : join(cacheDir, `spam-filter-${version}-n${dataset.corpusSize}-s${seed}-r${TRAINING_REV}.json`);
  if (file) {
    try {
      return fromJSON(readFileSync(file, 'utf8'));
    } catch {
      // absent or unreadable: train below
    }
  }
  const params = trainModel(version, dataset.train);
  if (file && cacheDir != null) {
    try {
      mkdirSync(cacheDir, { recursive: true });
      const tmp = `${file}.${process.pid}.tmp`;
      writeFileSync(tmp, toJSON(params));
      renameSync(tmp, file);
    } catch (err) {
      console.warn(`demo model cache not written (${file}): ${(err as Error).message}`);
    }
  }
  return params;
}

/** Share of messages whose predicted label matches the ground truth. */
export function accuracy(classifier: Classifier, messages: readonly Message[]): number {
  const preds = classifier.predict(messages.map((m) => m.text));
  let right = 0;
  preds.forEach((p, i) => {
    if (p.label === messages[i]?.label) right++;
  });
  return messages.length === 0 ? 0 : right / messages.length;
}
