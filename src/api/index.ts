/** The public HTTP API (Hono). */
/** Builds the Hono app with every route; errors map to statuses in one table. */
export { createApi } from './app.ts';
export type { ApiOptions } from './app.ts';
/** Error code → HTTP status, and the error envelope. */
export { HTTP_STATUS, toErrorResponse } from './errors.ts';
/** Serves the built dashboard (web/dist) with an index.html fallback for client routes. */
export { mountUi } from './ui.ts';
/** `POST /v1/compare`: release verdicts with their evidence. */
export { releaseRoutes } from './release-routes.ts';
export type { ReleaseRoutesOptions } from './release-routes.ts';
/** Quality summaries, drift, feedback, golden sets and probe results. */
export { qualityRoutes } from './quality-routes.ts';
/** Alerting routes: alerts, incidents, silences, actions (audit + approve), rules. */
export { alertRoutes } from './alert-routes.ts';
export type { AlertRoutesDeps } from './alert-routes.ts';
/** `POST /v1/rules/backtest`: rules replayed on the live evaluator over a past range, scored against known incidents. */
export { backtestRoutes } from './backtest-routes.ts';
export type { BacktestRoutesOptions } from './backtest-routes.ts';
/** `POST /v1/samples/search`: captured samples behind a chart point (slice + time bucket). */
export { samplesRoutes } from './samples-routes.ts';
export type { SamplesRoutesOptions } from './samples-routes.ts';
