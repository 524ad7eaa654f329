/**
 * Loading rule files: YAML → zod → the checks zod cannot say (measures parse, templates compile,
 * group names unique, windows ordered). Every problem is listed with file, line and field path.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { LineCounter, isNode, parseDocument } from 'yaml';
import { NUMERIC_FIELDS, parseMeasure, zodIssues } from '../schema/index.ts';
import { CATEGORICAL_FIELDS, ConditionSchema, GroupShellSchema, RuleFileShellSchema, RuleSchema, durationMs } from './rule-schema.ts';
import type { Condition, LatencyShiftCondition, RateShiftCondition, Rule, RuleGroup } from './rule-schema.ts';
import { checkTemplate } from './template.ts';

/** One problem in a rule file. */
export interface RuleProblem {
  file: string;
  /** 1-based line, when the place is known. */
  line?: number;
  /** Dotted path to the field, e.g. groups.0.rules.2.condition.measure */
  path: string;
  message: string;
}

export interface LoadedRules {
  groups: RuleGroup[];
  problems: RuleProblem[];
}

/** The default rule pack shipped with inferlens (rules/default.yaml; compiled code runs one level down, in dist/). */
export const DEFAULT_RULE_PACK = fileURLToPath(new URL(`${import.meta.url.endsWith('.js') ? '../' : ''}../../rules/default.yaml`, import.meta.url));

/** Default evaluation interval of a group without one (Prometheus' default is 1m; ours 30s). */
export const DEFAULT_INTERVAL_MS = 30_000;

const RATE_KINDS = new Set(['status_rate', 'error_type_rate', 'flag_rate', 'below_rate']);
const NUMERIC_SET: ReadonlySet<string> = new Set(NUMERIC_FIELDS);

/** Problems zod cannot see in one condition; paths are relative to the condition. */
function checkCondition(c: Condition): { path: string; message: string }[] {
  const out: { path: string; message: string }[] = [];
  const measureProblem = (m: string | undefined, rateOnly: boolean) => {
    if (m === undefined) return;
    const parsed = parseMeasure(m);
    if (typeof parsed === 'string') out.push({ path: 'measure', message: parsed });
    else if (rateOnly && !RATE_KINDS.has(parsed.kind))
      out.push({
        path: 'measure',
        message: `"${m}" is not a proportion: use a rate such as empty_rate, refused_rate, error_rate or below_rate(confidence, 0.6)`,
      });
  };
  switch (c.kind) {
    case 'threshold':
      measureProblem(c.measure, false);
      if (c.relative_to && 'peers' in c.relative_to && !c.by.includes(c.relative_to.peers))
        out.push({ path: 'relative_to.peers', message: `"${c.relative_to.peers}" must be one of the rule's by dimensions (the peers differ only in it)` });
      break;
    case 'slo_burn_rate':
      (c.windows ?? []).forEach((w, i) => {
        if (durationMs(w.short) >= durationMs(w.long)) out.push({ path: `windows.${i}.short`, message: 'the short window must be shorter than the long one' });
      });
      if (c.latency && c.bad_statuses.join() !== 'error,timeout')
        out.push({ path: 'bad_statuses', message: 'give either latency (a latency SLO) or bad_statuses (an error SLO), not both' });
      break;
    case 'quality_change':
      if (c.test === 'proportion') {
        if (c.measure === undefined) out.push({ path: 'measure', message: 'required for test: proportion (e.g. empty_rate)' });
        measureProblem(c.measure, true);
        if (c.field !== undefined) out.push({ path: 'field', message: 'only for test: drift' });
      } else {
        if (c.field === undefined) out.push({ path: 'field', message: 'required for test: drift (e.g. confidence, label or features.<name>)' });
        else if (!/^features\.[\w.-]{1,64}$/.test(c.field) && !CATEGORICAL_FIELDS.has(c.field) && !NUMERIC_SET.has(c.field))
          out.push({
            path: 'field',
            message: `unknown field "${c.field}": expected a numeric event field, label, finish_reason, status, error_type or features.<name>`,
          });
        if (c.measure !== undefined) out.push({ path: 'measure', message: 'only for test: proportion' });
      }
      break;
    case 'resource':
      if (c.step !== undefined && durationMs(c.step) > durationMs(c.window)) out.push({ path: 'step', message: 'must not be longer than the window' });
      if (c.step !== undefined && durationMs(c.step) < 1000) out.push({ path: 'step', message: 'must be at least 1s' });
      if ((c.agg === 'trend' || c.agg === 'time_to_limit') && c.step !== undefined && durationMs(c.window) / durationMs(c.step) < 8)
        out.push({ path: 'step', message: `${c.agg} needs at least 8 steps in the window (a Mann–Kendall test on fewer points cannot reach a small alpha)` });
      break;
    case 'rate_shift':
    case 'latency_shift':
      out.push(...checkShift(c));
      break;
    case 'distribution_shift':
      if (!CATEGORICAL_FIELDS.has(c.field) && !NUMERIC_SET.has(c.field))
        out.push({ path: 'field', message: `unknown field "${c.field}": expected label, finish_reason, status, error_type or a numeric event field` });
      if (c.bins !== undefined && CATEGORICAL_FIELDS.has(c.field)) out.push({ path: 'bins', message: 'only for a numeric field' });
      if (c.by.includes(c.field as never)) out.push({ path: 'by', message: `"${c.field}" is the field whose distribution is tested, not a slice` });
      out.push(...checkHorizon(c.horizon));
      break;
    default:
      break;
  }
  return out;
}

/** The longest horizon the sequential detectors accumulate over (WINDOW_MINUTES ends at 120). */
const MAX_HORIZON_MS = 120 * 60_000;

function checkHorizon(h: string): { path: string; message: string }[] {
  const ms = durationMs(h);
  if (ms < 60_000) return [{ path: 'horizon', message: 'must be at least 1m (the detectors count per minute)' }];
  if (ms > MAX_HORIZON_MS) return [{ path: 'horizon', message: 'must be at most 120m' }];
  return [];
}

/** rate_shift / latency_shift: dimensions that must agree with each other. */
function checkShift(c: RateShiftCondition | LatencyShiftCondition): { path: string; message: string }[] {
  const out = checkHorizon(c.horizon);
  c.localize.forEach((d, i) => {
    if (c.by.includes(d)) out.push({ path: `localize.${i}`, message: `"${d}" is already in by: localize names the dimensions a slice is split by` });
  });
  if ('peers' in c.reference && !c.by.includes(c.reference.peers))
    out.push({ path: 'reference.peers', message: `"${c.reference.peers}" must be one of the rule's by dimensions (the peers differ only in it)` });
  if ('peers' in c.reference && c.localize.length > 0)
    out.push({ path: 'localize', message: 'not with reference.peers: a slice compared with its peers is already localised' });
  if (c.fallback_peers !== undefined && !c.by.includes(c.fallback_peers))
    out.push({ path: 'fallback_peers', message: `"${c.fallback_peers}" must be one of the rule's by dimensions` });
  if (c.fallback_peers !== undefined && 'peers' in c.reference) out.push({ path: 'fallback_peers', message: 'only with a reference window (the own past)' });
  if (c.share !== undefined && !c.by.includes('model_version'))
    out.push({ path: 'share', message: "needs model_version in by (the share is a version's share of its model)" });
  if (c.by.length + (c.localize.length > 0 ? 1 : 0) > 4)
    out.push({ path: 'localize', message: 'by plus one localize dimension must be at most 4 dimensions (a query groups by at most 4)' });
  if (c.kind === 'latency_shift' && c.min_ratio * (1 - c.quantile) >= 0.95)
    out.push({
      path: 'min_ratio',
      message: `min_ratio × (1 − quantile) must be below 0.95: ${c.min_ratio} × ${(1 - c.quantile).toFixed(3)} leaves no room for a change`,
    });
  return out;
}

/** Parses and checks one rule file's text. `file` names it in problems. */
export function parseRuleText(text: string, file: string): LoadedRules {
  const lc = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lc, prettyErrors: true, uniqueKeys: true });
  const problems: RuleProblem[] = [];
  for (const e of doc.errors) problems.push({ file, line: e.linePos?.[0].line, path: '', message: e.message.split('\n')[0] ?? e.message });
  if (problems.length > 0) return { groups: [], problems };

  /** The line of the deepest node that exists along a path. */
  const lineOf = (path: (string | number)[]): number | undefined => {
    for (let n = path.length; n >= 0; n--) {
      const node = doc.getIn(path.slice(0, n), true);
      if (isNode(node) && node.range) return lc.linePos(node.range[0]).line;
    }
    return undefined;
  };
  const problem = (path: (string | number)[], message: string) => {
    const line = lineOf(path);
    problems.push({ file, ...(line !== undefined && { line }), path: path.join('.'), message });
  };

  const zodProblems = (prefix: (string | number)[], error: Parameters<typeof zodIssues>[0]) => {
    for (const i of zodIssues(error))
      problem([...prefix, ...(i.path === '' ? [] : i.path.split('.').map((p) => (/^\d+$/.test(p) ? Number(p) : p)))], i.message);
  };
  const raw = doc.toJS() as unknown;
  // The outer shape first, then every rule on its own: one bad rule does not hide the others' problems.
  const r = RuleFileShellSchema.safeParse(raw ?? {});
  if (!r.success) {
    zodProblems([], r.error);
    return { groups: [], problems: sortProblems(problems) };
  }

  const groups: RuleGroup[] = [];
  const seen = new Set<string>();
  r.data.groups.forEach((rawGroup, gi) => {
    const name = (rawGroup as { name?: unknown } | null)?.name;
    if (typeof name === 'string') {
      if (seen.has(name)) problem(['groups', gi, 'name'], `group name "${name}" is used twice in this file`);
      seen.add(name);
    }
    const gs = GroupShellSchema.safeParse(rawGroup);
    if (!gs.success) {
      zodProblems(['groups', gi], gs.error);
      // Still check the rules of a group whose own fields are wrong.
      const rawRules = (rawGroup as { rules?: unknown } | null)?.rules;
      if (Array.isArray(rawRules)) rawRules.forEach((input, ri) => checkRule(input, ['groups', gi, 'rules', ri], ''));
      return;
    }
    const g = gs.data;
    const rules: Rule[] = [];
    g.rules.forEach((input, ri) => {
      const rule = checkRule(input, ['groups', gi, 'rules', ri], g.name);
      if (rule) rules.push(rule);
    });
    groups.push({
      name: g.name,
      file,
      intervalMs: g.interval ? durationMs(g.interval) : DEFAULT_INTERVAL_MS,
      ...(g.interval ? {} : { defaultInterval: true }),
      limit: g.limit,
      rules,
    });
  });
  return { groups: problems.length > 0 ? [] : groups, problems: sortProblems(problems) };

  /** Checks one rule; the Rule when it parsed (its semantic problems are reported beside). */
  function checkRule(input: unknown, at: (string | number)[], group: string): Rule | undefined {
    // The checks beyond zod run on the raw parts too, so a rule with one structural problem still
    // has its other problems listed.
    const raw = (typeof input === 'object' && input !== null ? input : {}) as Record<string, unknown>;
    const condKey = 'expr' in raw && !('condition' in raw) ? 'expr' : 'condition';
    const cond = ConditionSchema.safeParse(raw[condKey]);
    if (cond.success) for (const p of checkCondition(cond.data)) problem([...at, condKey, ...p.path.split('.')], p.message);
    const strings = (v: unknown): [string, string][] =>
      typeof v === 'object' && v !== null ? Object.entries(v).filter((e): e is [string, string] => typeof e[1] === 'string') : [];
    for (const [k, t] of strings(raw.annotations)) for (const m of checkTemplate(t)) problem([...at, 'annotations', k], m);
    const params = typeof raw.action === 'object' && raw.action !== null ? (raw.action as { params?: unknown }).params : undefined;
    for (const [k, t] of strings(params)) for (const m of checkTemplate(t)) problem([...at, 'action', 'params', k], m);
    for (const [k] of strings(raw.labels))
      if (k === 'alertname' || k === 'severity') problem([...at, 'labels', k], `label "${k}" is set from the rule; remove it here`);
    const parsed = RuleSchema.safeParse(input);
    if (!parsed.success) {
      zodProblems(at, parsed.error);
      return undefined;
    }
    const rule = parsed.data;
    const line = lineOf(at);
    return {
      alert: rule.alert,
      group,
      condition: rule.condition,
      forMs: durationMs(rule.for),
      severity: rule.severity,
      labels: rule.labels,
      annotations: rule.annotations,
      ...(rule.action && { action: rule.action }),
      source: { file, ...(line !== undefined && { line }) },
    };
  }
}

function sortProblems(ps: RuleProblem[]): RuleProblem[] {
  return ps.sort((a, b) => (a.line ?? 0) - (b.line ?? 0));
}

/** Reads and checks rule files; group names must be unique across all of them. */
export function loadRuleFiles(files: readonly string[]): LoadedRules {
  const groups: RuleGroup[] = [];
  const problems: RuleProblem[] = [];
  const owner = new Map<string, string>();
  for (const file of files) {
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (e) {
      problems.push({ file, path: '', message: `cannot read: ${(e as Error).message}` });
      continue;
    }
    const r = parseRuleText(text, file);
    problems.push(...r.problems);
    for (const g of r.groups) {
      const first = owner.get(g.name);
      if (first !== undefined && first !== file) problems.push({ file, path: 'groups', message: `group "${g.name}" is also defined in ${first}` });
      owner.set(g.name, file);
      groups.push(g);
    }
  }
  return { groups: problems.length > 0 ? [] : groups, problems };
}

/** Formats a problem as `file:line: path: message`. */
export function formatProblem(p: RuleProblem): string {
  return `${p.file}${p.line !== undefined ? `:${p.line}` : ''}: ${p.path ? `${p.path}: ` : ''}${p.message}`;
}
