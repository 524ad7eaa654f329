import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { formatProblem, loadRuleFiles, parseRuleText } from './rule-file.ts';

const ROOT = resolve(import.meta.dirname, '..', '..');

describe('rule files', () => {
  it('the default rule pack is valid and covers the required signals', () => {
    const r = loadRuleFiles([resolve(ROOT, 'rules/default.yaml')]);
    expect(r.problems.map(formatProblem)).toEqual([]);
    const rules = r.groups.flatMap((g) => g.rules);
    const names = rules.map((x) => x.alert);
    // Every signal of the incident catalogue has a detector (bench/fleet/README.md lists the kinds).
    for (const n of [
      'ErrorsUp',
      'CanaryErrorsUp',
      'ErrorsHigh',
      'LoadShedding',
      'LatencyTailUp',
      'CanaryLatencyUp',
      'ReplicaSlow',
      'QueueBacklog',
      'StageSlow',
      'BatchingSlow',
      'EntryStageSlow',
      'ReplicaNoData',
      'ReplicaRestarting',
      'GpuMemoryFullSoon',
      'GpuMemoryNearLimit',
      'OutputDistributionShift',
      'ConfidenceDrop',
      'EmptyResultsUp',
      'RefusalsUp',
      'FormatErrorsUp',
      'GoldenSamplesFailing',
    ])
      expect(names).toContain(n);
    // Statistical detectors, and the crisp resource and golden checks; no fixed thresholds on request metrics, no borrowed SLO.
    expect(new Set(rules.map((x) => x.condition.kind))).toEqual(
      new Set(['rate_shift', 'latency_shift', 'distribution_shift', 'resource', 'golden_failure', 'no_data']),
    );
    // rate_limit is the demo's (a tenant's quota is a business decision, demo/rules/spam-filter.yaml).
    expect(new Set(rules.flatMap((x) => (x.action ? [x.action.type] : [])))).toEqual(
      new Set(['scale_out', 'switch_route', 'pause_canary', 'rollback', 'adjust_batch']),
    );
    // Only user-visible impact with strong evidence pages.
    expect(rules.filter((x) => x.severity === 'critical').map((x) => x.alert)).toEqual(['ErrorsHigh', 'GoldenSamplesFailing']);
  });

  it('lists every problem of a bad file with its line', () => {
    const r = loadRuleFiles([resolve(ROOT, 'test/fixtures/rules/bad.yaml')]);
    const text = r.problems.map(formatProblem);
    expect(r.groups).toEqual([]);
    // One problem per mistake in the file, in line order: structure (zod) and meaning (measures,
    // templates, reserved labels, duplicate names) alike, even inside a group that is itself broken.
    const where = text.map((t) => t.replace(/^.*bad\.yaml:(\d+): ([\w.]+):.*$/, '$1 $2'));
    expect(where).toEqual([
      '4 groups.0.interval',
      '6 groups.0.rules.0.alert',
      '7 groups.0.rules.0.condition.measure',
      '8 groups.0.rules.0.severity',
      '10 groups.0.rules.1.condition.kind',
      '13 groups.0.rules.2.condition.measure',
      '15 groups.0.rules.2.labels.severity',
      '16 groups.0.rules.2.annotations.summary',
      '17 groups.0.rules.2.action',
      '18 groups.1.name',
    ]);
  });

  it('semantic problems: measures, proportions, templates, reserved labels, duplicate groups', () => {
    const r = parseRuleText(
      `groups:
  - name: a
    rules:
      - alert: A
        condition: { kind: threshold, measure: p99(nope_ms), window: 5m, op: '>', value: 1 }
        severity: warning
      - alert: B
        expr: { kind: quality_change, measure: p99(total_ms), window: 1h }
        severity: info
        labels: { severity: high }
        annotations: { summary: '{{ $labels.model | shout }}' }
  - name: a
`,
      'x.yaml',
    );
    expect(r.problems.map(formatProblem)).toEqual([
      expect.stringMatching(/^x\.yaml:5: groups\.0\.rules\.0\.condition\.measure: unknown numeric field "nope_ms"/),
      expect.stringMatching(/^x\.yaml:8: groups\.0\.rules\.1\.expr\.measure: "p99\(total_ms\)" is not a proportion/),
      'x.yaml:10: groups.0.rules.1.labels.severity: label "severity" is set from the rule; remove it here',
      expect.stringMatching(/^x\.yaml:11: groups\.0\.rules\.1\.annotations\.summary: unknown template function "shout"/),
      'x.yaml:12: groups.1.name: group name "a" is used twice in this file',
    ]);
  });

  it('peers must be a by dimension; a trend needs at least 8 steps', () => {
    const r = parseRuleText(
      `groups:
  - name: a
    rules:
      - alert: A
        condition: { kind: threshold, measure: p99(exec_ms), window: 5m, by: [model], relative_to: { peers: replica }, op: '>', value: 1.5 }
        severity: warning
      - alert: B
        condition: { kind: resource, metric: gpu_memory_used_bytes, window: 2m, agg: trend, step: 30s, op: '>', value: 1 }
        severity: warning
`,
      'p.yaml',
    );
    expect(r.problems.map(formatProblem)).toEqual([
      'p.yaml:5: groups.0.rules.0.condition.relative_to.peers: "replica" must be one of the rule\'s by dimensions (the peers differ only in it)',
      expect.stringMatching(/^p\.yaml:8: groups\.0\.rules\.1\.condition\.step: trend needs at least 8 steps/),
    ]);
  });

  it('YAML syntax errors carry the line', () => {
    const r = parseRuleText('groups:\n  - name: a\n    rules: [\n', 'y.yaml');
    expect(r.problems[0]).toMatchObject({ file: 'y.yaml' });
    expect(r.problems[0]!.line).toBeGreaterThan(0);
  });
});
