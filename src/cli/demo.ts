/**
 * `inferlens demo`: inferlens plus a real model service, live traffic with incidents, delayed
 * feedback and simulated GPU samples (see demo/main.ts). `npm start` runs it.
 */
import { InvalidArgumentError, Option } from 'commander';
import type { Command } from 'commander';
import type { DemoOptions, ScenarioName } from '../../demo/main.ts';
import { INCIDENT_KINDS } from '../../demo/scenario/index.ts';
import type { IncidentKind } from '../../demo/scenario/index.ts';
import { parseDurationMs } from '../schema/index.ts';

const wholeNumber = (name: string) => (v: string) => {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0) throw new InvalidArgumentError(`${name} must be a whole number`);
  return n;
};
const positive = (name: string) => (v: string) => {
  const n = Number(v);
  if (!(n > 0)) throw new InvalidArgumentError(`${name} must be a number > 0`);
  return n;
};
const duration = (name: string) => (v: string) => {
  const ms = parseDurationMs(v);
  if (ms === undefined) throw new InvalidArgumentError(`${name} must be a duration such as 90s, 30m or 24h`);
  return ms;
};
const backfillSpan = (v: string) => {
  if (v !== 'auto' && v !== 'off' && parseDurationMs(v) === undefined) throw new InvalidArgumentError('--backfill must be auto, off, or a span such as 24h');
  return v;
};
const incidentList = (v: string): IncidentKind[] => {
  const kinds = v.split(',').map((s) => s.trim());
  const bad = kinds.filter((k) => !(INCIDENT_KINDS as readonly string[]).includes(k));
  if (bad.length > 0) throw new InvalidArgumentError(`unknown incident ${bad.join(', ')}: expected ${INCIDENT_KINDS.join(', ')}`);
  return kinds as IncidentKind[];
};

interface DemoFlags {
  config?: string;
  port?: number;
  data?: string;
  backfill: string;
  backfillOnly?: boolean;
  scenario: ScenarioName;
  incidents?: IncidentKind[];
  rate: number;
  duration?: number;
  ui: boolean;
}

/**
 * Adds `demo` to the program. `run` defaults to demo/main.ts's `runDemo`, loaded on use: the demo
 * pulls in the corpus and the models, which other commands do not need (and demo/main.ts, run
 * directly, passes its own `runDemo` here, as it cannot import itself while it starts).
 */
export function registerDemoCommand(program: Command, run?: (options: DemoOptions) => Promise<void>): Command {
  return program
    .command('demo')
    .description('run inferlens with a real spam-filter service, live traffic from 40 tenants, feedback, simulated GPU samples and scheduled incidents')
    .option('-c, --config <file>', 'YAML configuration file')
    .option('-p, --port <n>', 'inferlens port (default 7070; 0 picks a free one)', wholeNumber('port'))
    .option('-d, --data <dir>', 'data folder (default ./data); the ground truth goes to <dir>/scenario-ground-truth.json')
    .option('--backfill <span>', 'history to write first: auto (24h when the store is empty), off, or a span such as 24h', backfillSpan, 'auto')
    .option('--backfill-only', 'write the history and exit')
    .addOption(
      new Option('--scenario <name>', 'incidents: full (40-min cycle), quick (all six in ~5 min), clean (none), custom (--incidents)')
        .choices(['full', 'quick', 'clean', 'custom'])
        .default('full'),
    )
    .option('--incidents <list>', `with --scenario custom: comma-separated, from ${INCIDENT_KINDS.join(', ')}`, incidentList)
    .option('--rate <req/s>', 'daily mean request rate', positive('rate'), 4)
    .option('--duration <span>', 'stop by itself after this long, e.g. 10m', duration('duration'))
    .option('--no-ui', 'do not serve the dashboard')
    .action(async (o: DemoFlags) => {
      const runDemo = run ?? (await import('../../demo/main.ts')).runDemo;
      await runDemo({
        ...(o.config !== undefined && { config: o.config }),
        ...(o.port !== undefined && { port: o.port }),
        ...(o.data !== undefined && { data: o.data }),
        env: process.env,
        backfill: o.backfill,
        backfillOnly: o.backfillOnly === true,
        scenario: o.scenario,
        ...(o.incidents && { incidents: o.incidents }),
        ratePerS: o.rate,
        ...(o.duration !== undefined && { durationMs: o.duration }),
        ui: o.ui,
      });
    });
}
