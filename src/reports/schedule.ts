/**
 * Scheduled delivery of the periodic review: for each schedule, the review of its period ending at
 * each due time (every multiple of `every` since the epoch, plus `offset`, UTC) as Markdown, handed
 * to `deliver` (main.ts sends it through the named webhook receivers, whose bounded queues retry).
 *
 * Time is the injected clock's. A due time is sent once, when a tick at or after it runs; the
 * report covers the period ending at the due time, not at the tick, so a late tick sends the same
 * figures. Due times that passed before the process started (or while it was down) are not sent:
 * the first tick only records where it stands. Two processes with the same schedule (an HA pair)
 * both send.
 */
import type { Logger } from 'pino';
import type { Clock } from '../alerting/index.ts';
import { parseDurationMs } from '../schema/index.ts';
import { reportMarkdown } from './markdown.ts';
import type { Report } from './report.ts';

export interface ReportSchedule {
  name: string;
  period: string;
  every: string;
  offset: string;
  receivers: readonly string[];
}

/** What a schedule hands over: the Markdown and where it came from. */
export interface ScheduledReport {
  schedule: string;
  receivers: readonly string[];
  period: { from: string; to: string };
  markdown: string;
}

export interface ReportScheduler {
  /** Sends every schedule whose due time passed since the last tick; resolves when they were handed over. */
  tick(nowMs?: number): Promise<void>;
  start(): void;
  stop(): void;
  stats(): { sentTotal: number; failedTotal: number };
}

/** How often the scheduler looks at the clock. */
export const SCHEDULE_TICK_MS = 30_000;

/** The latest due time at or before nowMs. */
export function lastDue(nowMs: number, everyMs: number, offsetMs: number): number {
  return Math.floor((nowMs - offsetMs) / everyMs) * everyMs + offsetMs;
}

export function createReportScheduler(o: {
  schedules: readonly ReportSchedule[];
  build: (periodMs: number, nowMs: number) => Promise<Report>;
  deliver: (r: ScheduledReport) => void;
  clock: Clock;
  logger?: Logger;
}): ReportScheduler {
  const plans = o.schedules.map((s) => ({ s, periodMs: parseDurationMs(s.period)!, everyMs: parseDurationMs(s.every)!, offsetMs: parseDurationMs(s.offset)! }));
  // The due time each schedule last reached (sent, or passed before the first tick).
  const reached = new Map<string, number>();
  let timer: unknown = null;
  let running: Promise<void> | null = null;
  let sentTotal = 0;
  let failedTotal = 0;

  async function run(nowMs: number): Promise<void> {
    for (const p of plans) {
      const due = lastDue(nowMs, p.everyMs, p.offsetMs);
      const last = reached.get(p.s.name);
      reached.set(p.s.name, due);
      if (last === undefined || due <= last) continue;
      try {
        const report = await o.build(p.periodMs, due);
        o.deliver({
          schedule: p.s.name,
          receivers: p.s.receivers,
          period: { from: report.period.from, to: report.period.to },
          markdown: reportMarkdown(report),
        });
        sentTotal++;
      } catch (e) {
        failedTotal++;
        o.logger?.warn({ schedule: p.s.name, err: (e as Error).message }, 'scheduled review not built; the next due time is tried as usual');
      }
    }
  }

  const scheduler: ReportScheduler = {
    async tick(nowMs = o.clock.now()) {
      // One run at a time: a slow report never overlaps the next tick's.
      while (running) await running;
      running = run(nowMs).finally(() => {
        running = null;
      });
      await running;
    },
    start() {
      if (timer !== null || plans.length === 0) return;
      const loop = () => {
        timer = o.clock.setTimeout(() => {
          void scheduler.tick().finally(loop);
        }, SCHEDULE_TICK_MS);
      };
      void scheduler.tick();
      loop();
    },
    stop() {
      if (timer !== null) o.clock.clearTimeout(timer);
      timer = null;
    },
    stats: () => ({ sentTotal, failedTotal }),
  };
  return scheduler;
}
