/**
 * The `data` of the API's replies, as the server builds them and the dashboard reads them: one
 * declaration for both. The server's query functions return these types, and `web/src` reads
 * replies through them (`web/src/api.ts` `post<T>` / `get<T>`), so renaming a reply field breaks
 * the typecheck of the server or of the web (`npm run typecheck:web`), never silently the page.
 * Keys are snake_case (src/schema/wire-names.ts). Imports only the vocabularies (types), so the
 * web can import it without zod. One file per area under `replies/`; this file names them all.
 */
export type {
  Cell,
  Row,
  Approximation,
  WindowText,
  QueryReply,
  SliceVerdict,
  RankedSliceReply,
  ErrorSlicesReply,
  StageShiftReply,
  SlowReplicaReply,
  TailCompositionReply,
  StagesReply,
  TrendEvidenceReply,
  SaturationReply,
  HistogramReply,
  ResourceSeriesReply,
  ResourceQuantilesReply,
  CapacityReply,
  SampleReply,
  RequestReply,
  EventSearchReply,
  SamplesReply,
  ScrapeTargetReply,
  ScrapeTargetsReply,
} from './replies/runtime.ts';
export type {
  FeedbackRowReply,
  FeedbackReply,
  DistributionRow,
  ConfidenceHistogramRow,
  ClassShiftReply,
  ModelQualityReply,
  QualitySummaryReply,
  DriftTestReply,
  FieldDriftReply,
  DriftReply,
  PassCount,
  GoldenVersionReply,
  FailingSampleReply,
  GoldenResultsReply,
} from './replies/quality.ts';
export type { EvidenceRowReply, CompareSideReply, CompareReply } from './replies/release.ts';
export type { CostLineReply, CostReply } from './replies/cost.ts';
export type {
  AlertLabels,
  AlertReply,
  IncidentReply,
  AlertmanagerSilence,
  AlertmanagerSilenceLogged,
  IncidentHistoryItem,
  IncidentHistoryReply,
  ActionReply,
  ActionsReply,
  RuleReply,
  RulesReply,
  BacktestEpisodeReply,
  BacktestReply,
} from './replies/alerting.ts';
export type { SessionReply } from './replies/session.ts';
