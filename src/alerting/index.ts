/**
 * Alerting: rule files (YAML), the evaluator state machine, incidents, inhibition, silences and
 * actions. Reads only through the Queries seam; notifies only through the Notifier seam.
 */
/** Builds the alerting component (evaluator + incidents + silences + actions + notifiers). */
export { createAlerting } from './alerting.ts';
export type { Alerting, AlertingOptions, AlertView, RuleGroupView, RuleView } from './alerting.ts';
/** Reads and checks rule files; every problem with file, line and path. */
export { loadRuleFiles, parseRuleText, formatProblem, DEFAULT_INTERVAL_MS, DEFAULT_RULE_PACK } from './rule-file.ts';
export type { LoadedRules, RuleProblem } from './rule-file.ts';
/** The rule file schema and its types. */
export { ConditionSchema, SEVERITIES, ACTION_TYPES, durationMs } from './rule-schema.ts';
export type { Rule, RuleGroup, RuleAction, Condition, Severity, ActionType } from './rule-schema.ts';
/** The SRE Workbook window pairs used when a burn-rate rule names none. */
export { PAGE_WINDOWS, TICKET_WINDOWS } from './conditions/index.ts';
/** Injectable time: the system clock (unref'd timers) and a manual clock for tests. */
export { systemClock, createManualClock } from './clock.ts';
export type { Clock, ManualClock } from './clock.ts';
/** Alertmanager-style inhibition rules and the defaults. */
export { DEFAULT_INHIBIT_RULES } from './inhibit.ts';
export type { InhibitRule } from './inhibit.ts';
/** Label matchers (`name="v"`, `=~`, `!=`, `!~`). */
export { parseMatcher, fingerprint } from './labels.ts';
export type { Labels, Matcher } from './labels.ts';
/** Silence input schema (for API docs). */
export { SilenceInputSchema } from './silences.ts';
export type { Silence, SilenceState } from './silences.ts';
/** Action modes, endpoints and audit records. */
export type { ActionMode, ActionEndpoint, ActionRecord, ActionState } from './actions.ts';
export type { IncidentView } from './incidents.ts';
/** The incident log read back: incidents with their timelines, and the window's silences. */
export type { IncidentHistory, IncidentHistoryReply, IncidentLogStore } from './incident-log.ts';
export type { Alert, AlertState } from './alert-state.ts';
/** The backtest: the live evaluator on a manual clock over a past range, and its score against known incidents. */
export { runBacktest, MAX_BACKTEST_RANGE_MS } from './backtest.ts';
export type { BacktestRun, BacktestOptions, BacktestRuleSummary, Episode } from './backtest.ts';
export { scoreBacktest, parseTruth, consistent, TruthSchema, DEFAULT_GRACE_MS } from './backtest-score.ts';
export type { BacktestScore, IncidentScore, KindScore, TruthIncident } from './backtest-score.ts';
/** One backtest as `POST /v1/rules/backtest` and `inferlens rules backtest` ask for it. */
export { backtestRequest, parseBacktestRequest, groupsFromText, BacktestRequestSchema } from './backtest-request.ts';
export type { BacktestRequest, BacktestReport, BacktestRequestOptions } from './backtest-request.ts';
/** What a sequential detector could judge in its last evaluation. */
export type { Coverage } from './conditions/index.ts';
