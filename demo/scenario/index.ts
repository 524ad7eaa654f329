/** Incidents injected at known times, and the ground-truth file that says what, where and when. */
/** Incident kinds, their targets and parameters, and the live / compressed schedules. */
export { INCIDENT_KINDS, INCIDENT_PARAMS, describeIncident, fullSchedule, compressedSchedule, FULL_CYCLE_MS } from './incidents.ts';
export type { IncidentKind, IncidentSpec, IncidentTargets, IncidentWhere, CompressedTiming, BurstSettings } from './incidents.ts';
/** Runs a schedule against actions and keeps the ground-truth file current. */
export { createScenario } from './scenario.ts';
export type { Scenario, ScenarioOptions, IncidentActions } from './scenario.ts';
/** Maps each incident kind onto the service controls, the traffic knobs and the GPU simulator. */
export { createIncidentActions } from './actions.ts';
export type { ActionTargets, TrafficControls } from './actions.ts';
/** The ground-truth file's shape and writer. */
export { writeGroundTruth, GROUND_TRUTH_FILE } from './ground-truth.ts';
export type { GroundTruth, GroundTruthIncident } from './ground-truth.ts';
