/** The public HTTP API (Hono). */
/** Builds the Hono app with every declared route; errors map to statuses in one table. */
export { createApi, hostnameOf, isLoopbackName } from './app.ts';
export type { Api, ApiOptions } from './app.ts';
/** The route table's types and the guard every route passes (auth, CSRF, role, read scope, audit). */
export { ANONYMOUS, changesState, mimeOf } from './routes.ts';
export type { Access, ApiEnv, Reads, Route } from './routes.ts';
/** A caller's read services over a store's reads (main.ts: over the scoped store). */
export { readsOver } from './reads.ts';
export type { ReadSource } from './reads.ts';
/** Error code → HTTP status, and the error envelope. */
export { HTTP_STATUS, toErrorResponse } from './errors.ts';
/** Serves the built dashboard (web/dist) with an index.html fallback for client routes. */
export { mountUi, uiRoute } from './ui.ts';
/** `POST /v1/compare`: release verdicts with their evidence. */
export { releaseRoutes } from './release-routes.ts';
/** Quality summaries, drift, feedback, golden sets and probe results. */
export { qualityRoutes } from './quality-routes.ts';
export type { QualityRouteDeps } from './quality-routes.ts';
/** Alerting routes: alerts, incidents, silences, actions (audit + approve), rules. */
export { alertRoutes } from './alert-routes.ts';
export type { AlertRoutesDeps } from './alert-routes.ts';
/** `POST /v1/rules/backtest`: rules replayed on the live evaluator over a past range, scored against known incidents. */
export { backtestRoutes } from './backtest-routes.ts';
export type { BacktestRoutesOptions } from './backtest-routes.ts';
/** `POST /v1/samples/search`: captured samples behind a chart point (slice + time bucket). */
export { samplesRoutes } from './samples-routes.ts';
/** `POST /v1/cost`: GPU time and tokens priced per model, tenant, 1,000 requests and 1,000 tokens. */
export { costRoutes } from './cost-routes.ts';
/** `GET /v1/reports`: the periodic review (JSON or Markdown). */
export { reportRoutes, reportReads } from './report-routes.ts';
/** API keys: generation, the hashed keys file, the keyring that authenticates them. */
export { createKeyring, generateKey, readKeysFile, writeKeysFile } from './keys.ts';
export type { Keyring, KeyringOptions } from './keys.ts';
/** Dashboard sessions (cookie + CSRF token). */
export { createSessions, SESSION_COOKIE, CSRF_HEADER } from './sessions.ts';
export type { Sessions, Session } from './sessions.ts';
/** The append-only, fsynced audit log of state changes. */
export { createAuditLog } from './audit.ts';
export type { AuditLog, AuditEntry } from './audit.ts';
/** Tenant scope of writes (a scoped ingest key's sink). */
export { scopedSink } from './tenant-scope.ts';
