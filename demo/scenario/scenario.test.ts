import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createIncidentActions } from './actions.ts';
import type { GroundTruth } from './ground-truth.ts';
import { compressedSchedule, fullSchedule, INCIDENT_KINDS, INCIDENT_PARAMS } from './incidents.ts';
import type { IncidentTargets } from './incidents.ts';
import { createScenario } from './scenario.ts';

const targets: IncidentTargets = {
  model: 'spam-filter',
  slowReplica: 'replica-1',
  errorTenant: 'wonka',
  canaryTenants: ['acme', 'globex'],
  node: 'node-a',
  creepGpu: '2',
  creepReplica: 'replica-2',
};

afterEach(() => {
  vi.useRealTimers();
});

describe('schedules', () => {
  it('the full schedule runs the six incidents one after another inside the 40-minute cycle', () => {
    const s = fullSchedule(targets);
    expect(s.map((i) => i.kind)).toEqual(INCIDENT_KINDS);
    for (let i = 1; i < s.length; i++) {
      const prev = s[i - 1] as (typeof s)[number];
      expect((s[i] as (typeof s)[number]).startOffsetMs).toBeGreaterThanOrEqual(prev.startOffsetMs + prev.durationMs);
    }
    const last = s.at(-1) as (typeof s)[number];
    expect(last.startOffsetMs + last.durationMs).toBeLessThanOrEqual(40 * 60_000);
    expect(s.find((i) => i.kind === 'tenant_errors')?.where).toMatchObject({ tenant: 'wonka', model_version: 'v2' });
    expect(s.find((i) => i.kind === 'gpu_memory_creep')?.where).toMatchObject({ node: 'node-a', gpu: '2' });
  });
});

describe('scenario runner', () => {
  it('begins and ends incidents on time, drives the controls, and writes the ground truth', async () => {
    vi.useFakeTimers();
    const t0 = Date.UTC(2026, 0, 10, 12);
    vi.setSystemTime(t0);
    const dir = mkdtempSync(join(tmpdir(), 'scenario-'));
    const file = join(dir, 'truth.json');
    const calls: string[] = [];
    const actions = createIncidentActions({
      controls: {
        slowReplica: (r, f) => void calls.push(`slow ${r} ${f}`),
        tenantError: (t, o) => void calls.push(`tenant ${t} ${o?.version} ${o?.rate}`),
        setCanary: (p) => void calls.push(`canary ${p}`),
        regression: (v, r) => void calls.push(`regression ${v} ${r ? r.slowdownFactor : 'off'}`),
      },
      traffic: {
        setRateMultiplier: (m) => void calls.push(`rate ×${m}`),
        setBurst: (b) => void calls.push(`burst ${b ? b.size : 'off'}`),
        setDriftShare: (s) => void calls.push(`drift ${s}`),
      },
      gpu: { setMemoryCreep: (g, b) => void calls.push(`creep ${g} ${b === null ? 'off' : Math.round(b / 1024 ** 2)}`) },
      baseCanaryPercent: 20,
    });
    const schedule = compressedSchedule(['slow_replica', 'load_spike', 'gpu_memory_creep'], targets, { warmupMs: 2_000, durationMs: 4_000, gapMs: 1_000 });
    const scenario = createScenario({ name: 'test', schedule, actions, file, tickMs: 100 });
    scenario.start();
    let truth = JSON.parse(readFileSync(file, 'utf8')) as GroundTruth;
    expect(truth.incidents.map((i) => [i.id, i.planned_start, i.start])).toEqual([
      ['slow_replica', new Date(t0 + 2_000).toISOString(), null],
      ['load_spike', new Date(t0 + 7_000).toISOString(), null],
      ['gpu_memory_creep', new Date(t0 + 12_000).toISOString(), null],
    ]);
    await vi.advanceTimersByTimeAsync(2_050);
    expect(scenario.active().map((i) => i.id)).toEqual(['slow_replica']);
    expect(calls).toEqual([`slow replica-1 ${INCIDENT_PARAMS.slowFactor}`]);
    await vi.advanceTimersByTimeAsync(5_000);
    expect(scenario.active().map((i) => i.id)).toEqual(['load_spike']);
    await vi.advanceTimersByTimeAsync(6_000);
    // creep: 40 GiB over 4 s = 10,240 MiB/s
    expect(calls).toEqual(['slow replica-1 3', 'slow replica-1 1', 'rate ×5', 'burst 120', 'rate ×1', 'burst off', 'creep 2 10240']);
    await scenario.stop();
    expect(calls.at(-1)).toBe('creep 2 off');
    truth = JSON.parse(readFileSync(file, 'utf8')) as GroundTruth;
    const slow = truth.incidents[0];
    expect(Date.parse(slow?.start ?? '') - (t0 + 2_000)).toBeLessThanOrEqual(100);
    expect(Date.parse(slow?.end ?? '') - (t0 + 6_000)).toBeLessThanOrEqual(100);
    expect(truth.incidents.every((i) => i.start !== null && i.end !== null)).toBe(true);
    rmSync(dir, { recursive: true, force: true });
  });

  it('a clean scenario injects nothing and repeats nothing', async () => {
    vi.useFakeTimers();
    const calls: string[] = [];
    const scenario = createScenario({
      name: 'clean',
      schedule: [],
      cycleMs: 1_000,
      actions: { begin: (i) => void calls.push(i.id), end: (i) => void calls.push(i.id) },
    });
    scenario.start();
    await vi.advanceTimersByTimeAsync(5_000);
    await scenario.stop();
    expect(calls).toEqual([]);
    expect(scenario.groundTruth().incidents).toEqual([]);
  });

  it('a cycling schedule repeats with suffixed ids', async () => {
    vi.useFakeTimers();
    const calls: string[] = [];
    const schedule = compressedSchedule(['input_drift'], targets, { warmupMs: 100, durationMs: 200, gapMs: 0 });
    const scenario = createScenario({
      name: 'cycle',
      schedule,
      cycleMs: 1_000,
      tickMs: 50,
      actions: { begin: (i) => void calls.push(`+${i.id}`), end: (i) => void calls.push(`-${i.id}`) },
    });
    scenario.start();
    await vi.advanceTimersByTimeAsync(2_500);
    await scenario.stop();
    expect(calls).toEqual(['+input_drift', '-input_drift', '+input_drift#2', '-input_drift#2', '+input_drift#3', '-input_drift#3']);
  });
});
