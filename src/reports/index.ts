/** Periodic review reports: the sections over a period against the one before, as JSON or Markdown. */
/** Builds the review of a period ending now (every section ranked, with sample counts and changes). */
export { buildReport, HOT_UTILIZATION } from './report.ts';
export type { Report, ReportReads } from './report.ts';
/** The review as Markdown for a chat tool. */
export { reportMarkdown } from './markdown.ts';
/** The review as a standalone HTML page with static SVG charts that prints well. */
export { reportHtml } from './html.ts';
/** "Which signal was missing": per incident, the signals that moved first, the first rule, and what the backtest says would have fired earlier. */
export { reviewIncidents, suggestedRule, MAX_REVIEWED } from './missing-signal.ts';
export type { IncidentReview } from './missing-signal.ts';
/** When a signal moved: modified z-scores for levels, a proportion test for rates, over the minutes before the first firing. */
export { firstSignals, firstLevelMove, firstRateMove, modifiedZ } from './first-signals.ts';
export type { SignalMove, MinutePoint } from './first-signals.ts';
/** The review on a schedule: each due time's report as Markdown, handed to the delivery main.ts wires. */
export { createReportScheduler, lastDue, SCHEDULE_TICK_MS } from './schedule.ts';
export type { ReportScheduler, ReportSchedule, ScheduledReport } from './schedule.ts';
