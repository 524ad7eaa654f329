/**
 * One backtest as the API and the CLI ask for it: a range, the rules (the server's, the default
 * pack, or rule files given as text), optionally the known incidents; the run and, with incidents,
 * its score. `POST /v1/rules/backtest` and `inferlens rules backtest` both end here.
 */
import { z } from 'zod';
import { InferlensError, parseDurationMs, zodIssues } from '../schema/index.ts';
import type { TypedReads } from '../query/index.ts';
import { runBacktest } from './backtest.ts';
import type { BacktestRun } from './backtest.ts';
import { DEFAULT_GRACE_MS, parseTruth, scoreBacktest } from './backtest-score.ts';
import type { BacktestScore } from './backtest-score.ts';
import { formatProblem, parseRuleText } from './rule-file.ts';
import type { RuleGroup } from './rule-schema.ts';

const rfc3339 = z.string().refine((s) => Number.isFinite(Date.parse(s)), { error: 'expected an RFC 3339 timestamp' });

export const BacktestRequestSchema = z
  .object({
    from: rfc3339,
    to: rfc3339,
    /** Rule files as text; without them the server's loaded rules. */
    rules: z
      .array(z.object({ file: z.string().min(1).max(256).default('request.yaml'), text: z.string().max(1_000_000) }).strict())
      .min(1)
      .max(20)
      .optional(),
    /** Known incidents (the truth file's content): adds the score. */
    truth: z.array(z.unknown()).max(10_000).optional(),
    /** How long after an incident ends an alert still belongs to it (default 10m). */
    grace: z
      .string()
      .refine((s) => parseDurationMs(s) !== undefined, { error: 'expected a duration such as 10m' })
      .optional(),
  })
  .strict();
export type BacktestRequest = z.infer<typeof BacktestRequestSchema>;

export interface BacktestReport extends BacktestRun {
  score: BacktestScore | null;
}

/** Rule files given as text → groups; every problem listed (file:line: path: message). */
export function groupsFromText(files: readonly { file: string; text: string }[]): RuleGroup[] {
  const problems: string[] = [];
  const groups: RuleGroup[] = [];
  for (const f of files) {
    const r = parseRuleText(f.text, f.file);
    problems.push(...r.problems.map(formatProblem));
    groups.push(...r.groups);
  }
  if (problems.length > 0)
    throw new InferlensError('invalid_argument', `rules: ${problems.length} problem${problems.length === 1 ? '' : 's'}:\n  - ${problems.join('\n  - ')}`);
  const names = new Set<string>();
  for (const g of groups) {
    if (names.has(g.name)) throw new InferlensError('invalid_argument', `rules: group "${g.name}" is defined twice across the files`);
    names.add(g.name);
  }
  return groups;
}

/** Validates a request body; every problem with its path. */
export function parseBacktestRequest(body: unknown): BacktestRequest {
  const r = BacktestRequestSchema.safeParse(body);
  if (!r.success)
    throw new InferlensError(
      'invalid_argument',
      zodIssues(r.error)
        .map((p) => `${p.path}: ${p.message}`)
        .join('; '),
    );
  return r.data;
}

export interface BacktestRequestOptions {
  reads: TypedReads;
  /** The rules used when the request gives none. */
  defaultGroups: () => readonly RuleGroup[];
  maxSeriesCells?: number;
  timer?: () => number;
}

/** Runs one request: rules, truth and range checked first (every problem listed), then the run and its score. */
export async function backtestRequest(req: BacktestRequest, o: BacktestRequestOptions): Promise<BacktestReport> {
  const groups = req.rules ? groupsFromText(req.rules) : o.defaultGroups();
  const truth = req.truth ? parseTruth(req.truth) : undefined;
  const fromMs = Date.parse(req.from);
  const toMs = Date.parse(req.to);
  const run = await runBacktest({
    groups,
    reads: o.reads,
    fromMs,
    toMs,
    ...(o.maxSeriesCells !== undefined && { maxSeriesCells: o.maxSeriesCells }),
    ...(o.timer && { timer: o.timer }),
  });
  const graceMs = req.grace ? parseDurationMs(req.grace)! : DEFAULT_GRACE_MS;
  return { ...run, score: truth ? scoreBacktest(run.episodes, truth, { fromMs, toMs }, graceMs) : null };
}
