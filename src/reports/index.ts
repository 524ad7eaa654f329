/** Periodic review reports: the sections over a period against the one before, as JSON or Markdown. */
/** Builds the review of a period ending now (every section ranked, with sample counts and changes). */
export { buildReport, HOT_UTILIZATION } from './report.ts';
export type { Report, ReportReads } from './report.ts';
/** The review as Markdown for a chat tool. */
export { reportMarkdown } from './markdown.ts';
