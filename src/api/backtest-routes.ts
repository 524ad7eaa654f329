/**
 * `POST /v1/rules/backtest` (role operate): the server's rules (or rule files sent as text)
 * replayed on the live evaluator over a past range of this server's data — the caller's tenants
 * only, through its scoped reads — with a score when known incidents come along. One backtest runs
 * at a time; a second is answered 429 with Retry-After, so a burst of backtests cannot take the
 * server's cores or memory (the detectors' series are bounded; past the bound the backtest stops
 * with resource_exhausted).
 */
import { backtestRequest, parseBacktestRequest } from '../alerting/index.ts';
import type { RuleGroup } from '../alerting/index.ts';
import { InferlensError } from '../schema/index.ts';
import type { BacktestReply } from '../schema/index.ts';
import { readJson } from './json-body.ts';
import type { Route } from './routes.ts';

export interface BacktestRoutesOptions {
  /** The rules a request without `rules` replays: the server's loaded rules. */
  defaultGroups: () => readonly RuleGroup[];
  /** Largest request body (rule files and a truth list travel in it). */
  maxBodyBytes?: number;
  maxSeriesCells?: number;
}

export function backtestRoutes(o: BacktestRoutesOptions): Route[] {
  let running = false;
  return [
    {
      method: 'POST',
      path: '/v1/rules/backtest',
      access: 'operate',
      // Not a change of state, but an operator's use of the server's cores: recorded who ran it.
      audit: 'rules.backtest',
      handler: async (c) => {
        if (running)
          throw new InferlensError('resource_exhausted', 'a backtest is already running on this server; try again when it ends', { retryAfterS: 10 });
        running = true;
        try {
          const req = parseBacktestRequest(await readJson(c, o.maxBodyBytes ?? 4 * 1024 * 1024));
          const data: BacktestReply = await backtestRequest(req, {
            reads: c.var.reads.typed,
            defaultGroups: o.defaultGroups,
            ...(o.maxSeriesCells !== undefined && { maxSeriesCells: o.maxSeriesCells }),
          });
          c.set('audit', { details: { from: req.from, to: req.to } });
          return c.json({ status: 'success', data });
        } finally {
          running = false;
        }
      },
    },
  ];
}
