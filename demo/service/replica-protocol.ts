/** Messages between the service and its replica workers (structured-cloned, so plain data only). */
import type { ModelParams, ModelVersion, Prediction } from '../model/index.ts';

/** Injected behaviour of one version on every replica (the v2 regression incident). */
export interface Regression {
  /** Exec time multiplier, ≥ 1: the worker busy-waits (factor − 1) × the measured predict time. */
  slowdownFactor: number;
  /** Share of predictions whose label is flipped (same confidence, now for the wrong label). */
  flipRate: number;
}

export interface ReplicaConfig {
  /** Exec time multiplier of this replica, ≥ 1 (the slow-replica incident). */
  slowFactor: number;
  /** Share of batches this replica fails (the replica-fault incident). */
  faultRate: number;
  regression: Partial<Record<ModelVersion, Regression>>;
}

export const HEALTHY_REPLICA: ReplicaConfig = { slowFactor: 1, faultRate: 0, regression: {} };

export interface ReplicaWorkerData {
  replica: string;
  models: ModelParams[];
  config: ReplicaConfig;
  /** Seeds the worker's fault and flip randomness. */
  seed: number;
}

export type ToReplica = { type: 'predict'; batchId: number; version: ModelVersion; texts: string[] } | { type: 'config'; config: ReplicaConfig };

export type FromReplica =
  | { type: 'ready' }
  | { type: 'result'; batchId: number; predictions: Prediction[]; execMs: number }
  | { type: 'failed'; batchId: number; message: string; execMs: number };
