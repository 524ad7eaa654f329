/**
 * `POST /v1/rules/backtest`: the server's rules (or rule files sent as text) replayed on the live
 * evaluator over a past range of this server's data, with a score when known incidents come along.
 * One backtest runs at a time; a second is answered 429 with Retry-After, so a burst of backtests
 * cannot take the server's cores or memory (the detectors' series are bounded; past the bound the
 * backtest stops with resource_exhausted).
 */
import type { Hono } from 'hono';
import { backtestRequest, parseBacktestRequest } from '../alerting/index.ts';
import type { RuleGroup } from '../alerting/index.ts';
import type { TypedReads } from '../query/index.ts';
import { InferlensError } from '../schema/index.ts';
import { readJson } from './json-body.ts';

export interface BacktestRoutesOptions {
  reads: TypedReads;
  /** The rules a request without `rules` replays: the server's loaded rules. */
  defaultGroups: () => readonly RuleGroup[];
  /** Largest request body (rule files and a truth list travel in it). */
  maxBodyBytes?: number;
  maxSeriesCells?: number;
}

export function backtestRoutes(o: BacktestRoutesOptions): (app: Hono) => void {
  let running = false;
  return (app) => {
    app.post('/v1/rules/backtest', async (c) => {
      if (running) throw new InferlensError('resource_exhausted', 'a backtest is already running on this server; try again when it ends', { retryAfterS: 10 });
      running = true;
      try {
        const req = parseBacktestRequest(await readJson(c, o.maxBodyBytes ?? 4 * 1024 * 1024));
        const data = await backtestRequest(req, { reads: o.reads, defaultGroups: o.defaultGroups, ...(o.maxSeriesCells !== undefined && { maxSeriesCells: o.maxSeriesCells }) });
        return c.json({ status: 'success', data });
      } finally {
        running = false;
      }
    });
  };
}
