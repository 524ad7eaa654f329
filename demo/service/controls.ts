/**
 * Incident controls: the knobs a scenario script turns to make the demo service misbehave in
 * known ways, so inferlens has something real to find. Every control is a function here and a
 * `POST /admin/<action>` endpoint (see `admin.ts`).
 *
 * Injected incidents, documented:
 * - slow replica: that replica's exec takes `factor` × its measured predict time (busy wait).
 * - replica fault: that replica fails a share of its batches → `error` / `replica_fault` / 503.
 * - kill replica: its worker is terminated mid-flight (in-flight batch → `replica_fault`), then
 *   replaced by a fresh one.
 * - tenant error: one tenant's requests on one version fail in post-processing → `error` /
 *   `internal` / 500; other tenants and versions are untouched.
 * - v2 regression: every replica runs that version `slowdownFactor` × slower and flips a seeded
 *   `flipRate` share of its labels (keeping the confidence, so it is confidently wrong).
 * - canary: change its percent, pause or resume it (`pause_canary` is the remediation action).
 * - batching: change max batch size / max wait per version (`adjust_batch`).
 * - rate limits: set or clear a tenant's token bucket.
 */
import type { ModelVersion } from '../model/index.ts';
import type { BatchSettings } from './batcher.ts';
import type { RateLimit } from './rate-limiter.ts';
import type { Regression } from './replica-protocol.ts';
import type { RouteRule } from './router.ts';

export interface TenantError {
  version: ModelVersion;
  /** Share of that tenant's requests on that version that fail, 0–1. */
  rate: number;
}

export interface ServiceState {
  replicas: Record<string, { ready: boolean; drained: boolean; slowFactor: number; faultRate: number; batches: number }>;
  regression: Partial<Record<ModelVersion, Regression>>;
  tenantErrors: Record<string, TenantError>;
  routes: RouteRule[];
  batch: Record<ModelVersion, BatchSettings & { queueDepth: number }>;
}

export interface ServiceControls {
  slowReplica(replica: string, factor?: number): void;
  replicaFault(replica: string, rate: number): void;
  killReplica(replica: string): Promise<void>;
  /** Routes new batches around a replica (the `switch_route` action), or back to it. */
  drainReplica(replica: string, drained?: boolean): void;
  /** Adds a replica (the `scale_out` action); resolves with its name once it serves. */
  scaleOut(): Promise<string>;
  /** `rate` 0 clears the injection. */
  tenantError(tenant: string, options?: Partial<TenantError>): void;
  setCanary(percent: number, rule?: string): void;
  pauseCanary(rule?: string): void;
  resumeCanary(rule?: string): void;
  /** Without a version, both versions change. */
  adjustBatch(settings: Partial<BatchSettings>, version?: ModelVersion): void;
  /** `null` ends the regression. */
  regression(version: ModelVersion, regression: Regression | null): void;
  setRateLimit(tenant: string, limit: RateLimit | null): void;
  /** Ends every injected incident (routes, batching and rate limits are left as they are). */
  reset(): void;
  state(): ServiceState;
}
