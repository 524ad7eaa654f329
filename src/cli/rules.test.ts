import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { printRulesCheck, printRulesTest, rulesCheck, rulesTest } from './rules.ts';

const FIX = resolve(import.meta.dirname, '../../test/fixtures/rules');
const tmp = mkdtempSync(join(tmpdir(), 'inferlens-rules-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('rules check', () => {
  it('passes the default pack and lists every problem of a bad file', () => {
    const good = rulesCheck([resolve(FIX, '../../../rules/default.yaml'), join(FIX, 'errors.yaml')]);
    expect(good).toMatchObject({ ok: true, problems: [], groups: 6 });
    const bad = rulesCheck([join(FIX, 'bad.yaml'), join(tmp, 'missing.yaml')]);
    expect(bad.ok).toBe(false);
    expect(bad.problems).toHaveLength(11); // 10 in bad.yaml, 1 for the missing file
    expect(bad.problems.some((p) => p.startsWith(`${join(FIX, 'bad.yaml')}:4: groups.0.interval`))).toBe(true);
    expect(bad.problems.some((p) => p.includes('missing.yaml: cannot read'))).toBe(true);
    const out: string[] = [];
    expect(printRulesCheck(bad, (l) => out.push(l))).toBe(1);
    expect(out.at(-1)).toMatch(/^FAILED: \d+ problems$/);
  });
});

describe('rules test', () => {
  it('passes a good test file (small rule file)', async () => {
    const r = await rulesTest(join(FIX, 'errors.test.yaml'));
    expect(r.problems).toEqual([]);
    expect(r.cases.map((c) => c.ok)).toEqual([true, true]);
    expect(r.ok).toBe(true);
  });

  it('fails with a diff on a wrong expectation', async () => {
    const text = readFileSync(join(FIX, 'errors.test.yaml'), 'utf8')
      .replace('rule_files: [errors.yaml]', `rule_files: [${join(FIX, 'errors.yaml')}]`)
      .replace('tenant: globex, severity', 'tenant: acme, severity');
    const file = join(tmp, 'wrong.test.yaml');
    writeFileSync(file, text);
    const r = await rulesTest(file);
    expect(r.ok).toBe(false);
    const failed = r.cases.find((c) => !c.ok)!;
    expect(failed.evalTime).toBe('7m');
    expect(failed.diff).toContain('- exp {"labels":{"model":"m","severity":"warning","tenant":"acme"}');
    expect(failed.diff).toContain('+ got {"labels":{"model":"m","severity":"warning","tenant":"globex"}');
    const out: string[] = [];
    expect(printRulesTest(file, r, (l) => out.push(l))).toBe(1);
    expect(out.join('\n')).toMatch(/FAILED: alertname: TenantErrors, time: 7m/);
  });

  it('says so when given a rule file instead of a test file', async () => {
    const r = await rulesTest(join(FIX, 'errors.yaml'));
    expect(r.ok).toBe(false);
    expect(r.problems[0]).toMatch(/this is a rule file; `rules test` takes a test file .* run `inferlens rules check /);
  });

  it('evaluates each group on its own interval, not at every step', async () => {
    // The rule holds from 2.5m on. Its group runs every 2m: evaluated at 2m (not yet), then 4m; at
    // 3m and 3.5m (test steps of 30 s) nothing has fired yet although the condition holds.
    writeFileSync(
      join(tmp, 'every2m.yaml'),
      `groups:
  - name: slow
    interval: 2m
    rules:
      - alert: AnyError
        condition: { kind: threshold, measure: error_rate, window: 1m, by: [model], op: '>', value: 0 }
        severity: warning
`,
    );
    const file = join(tmp, 'every2m.test.yaml');
    writeFileSync(
      file,
      `rule_files: [every2m.yaml]
evaluation_interval: 30s
input_events:
  - { every: 1s, from: 0m, to: 150s, event: { model: m, status: ok, total_ms: 20 } }
  - { every: 1s, from: 150s, to: 6m, event: { model: m, status: error, total_ms: 20 } }
alert_rule_test:
  - { eval_time: 3m, alertname: AnyError, exp_alerts: [] }
  - { eval_time: 210s, alertname: AnyError, exp_alerts: [] }
  - { eval_time: 4m, alertname: AnyError, exp_alerts: [{ exp_labels: { model: m, severity: warning } }] }
`,
    );
    const r = await rulesTest(file);
    expect(r.problems).toEqual([]);
    expect(r.cases.map((c) => [c.evalTime, c.ok])).toEqual([
      ['3m', true],
      ['210s', true],
      ['4m', true],
    ]);
  });

  it('reports a broken test file instead of running it', async () => {
    const file = join(tmp, 'broken.test.yaml');
    writeFileSync(file, 'rule_files: []\nalert_rule_test: []\n');
    const r = await rulesTest(file);
    expect(r.ok).toBe(false);
    expect(r.problems.length).toBeGreaterThan(0);
  });

  it('the default pack: slow replica, GPU memory, failing golden samples', async () => {
    const r = await rulesTest(join(FIX, 'default.test.yaml'));
    expect(r.problems).toEqual([]);
    expect(r.cases.filter((c) => !c.ok)).toEqual([]);
    expect(r.cases).toHaveLength(6);
  });
});
