/**
 * The scenario's ground truth: what was injected, where and when, in a JSON file that tests and
 * alert evaluations read to check detection. Times are RFC 3339; `start`/`end` are the actual
 * times (null until they happen), `planned_*` the schedule. Written atomically (temp + rename).
 */
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { IncidentKind, IncidentWhere } from './incidents.ts';

export interface GroundTruthIncident {
  id: string;
  kind: IncidentKind;
  title: string;
  where: IncidentWhere;
  expect: string;
  /** `backfill`: injected into the generated history; `live`: injected into the running service. */
  source: 'live' | 'backfill';
  planned_start: string;
  planned_end: string;
  start: string | null;
  end: string | null;
}

export interface GroundTruth {
  scenario: string;
  started_at: string;
  written_at: string;
  incidents: GroundTruthIncident[];
}

export const GROUND_TRUTH_FILE = 'scenario-ground-truth.json';

export function writeGroundTruth(file: string, truth: GroundTruth): void {
  mkdirSync(dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, `${JSON.stringify(truth, null, 2)}\n`);
  renameSync(tmp, file);
}
