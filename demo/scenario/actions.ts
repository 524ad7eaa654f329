/**
 * What each incident does to the running system, through the service's incident controls, the
 * traffic generator's knobs and the GPU simulator. `end` undoes exactly what `begin` did.
 */
import type { ServiceControls } from '../service/index.ts';
import type { GpuSimulator } from '../resources/index.ts';
import { INCIDENT_PARAMS } from './incidents.ts';
import type { BurstSettings, IncidentSpec } from './incidents.ts';
import type { IncidentActions } from './scenario.ts';

/** The traffic knobs an incident turns (the live generator has them). */
export interface TrafficControls {
  setRateMultiplier(multiplier: number): void;
  /** Share of requests drawn from the hard subset, 0–1. */
  setDriftShare(share: number): void;
  setBurst(burst: BurstSettings | null): void;
}

export interface ActionTargets {
  controls: Pick<ServiceControls, 'slowReplica' | 'tenantError' | 'setCanary' | 'regression'>;
  traffic: TrafficControls;
  gpu: Pick<GpuSimulator, 'setMemoryCreep'>;
  /** The canary percent to return to after the regression. */
  baseCanaryPercent: number;
}

function need(value: string | undefined, what: string, spec: IncidentSpec): string {
  if (!value) throw new Error(`incident ${spec.id} needs where.${what}`);
  return value;
}

export function createIncidentActions(t: ActionTargets): IncidentActions {
  const p = INCIDENT_PARAMS;
  return {
    begin(spec) {
      const w = spec.where;
      switch (spec.kind) {
        case 'slow_replica':
          return t.controls.slowReplica(need(w.replica, 'replica', spec), p.slowFactor);
        case 'tenant_errors':
          return t.controls.tenantError(need(w.tenant, 'tenant', spec), { version: 'v2', rate: p.tenantErrorRate });
        case 'input_drift':
          return t.traffic.setDriftShare(p.driftShare);
        case 'load_spike':
          t.traffic.setRateMultiplier(p.spikeRateMultiplier);
          return t.traffic.setBurst({ ...p.spikeBurst });
        case 'canary_regression':
          t.controls.setCanary(p.canaryPercent);
          return t.controls.regression('v2', { ...p.regression });
        case 'gpu_memory_creep':
          return t.gpu.setMemoryCreep(need(w.gpu, 'gpu', spec), p.creepBytesAtEnd / (spec.durationMs / 1000));
      }
    },
    end(spec) {
      const w = spec.where;
      switch (spec.kind) {
        case 'slow_replica':
          return t.controls.slowReplica(need(w.replica, 'replica', spec), 1);
        case 'tenant_errors':
          return t.controls.tenantError(need(w.tenant, 'tenant', spec), { version: 'v2', rate: 0 });
        case 'input_drift':
          return t.traffic.setDriftShare(0);
        case 'load_spike':
          t.traffic.setRateMultiplier(1);
          return t.traffic.setBurst(null);
        case 'canary_regression':
          t.controls.regression('v2', null);
          return t.controls.setCanary(t.baseCanaryPercent);
        case 'gpu_memory_creep':
          return t.gpu.setMemoryCreep(need(w.gpu, 'gpu', spec), null);
      }
    },
  };
}
