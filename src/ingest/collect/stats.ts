import type { ResourceSink } from '../../pipeline/index.ts';
import type { ResourceSample } from '../../schema/index.ts';

/** What each collector reports about itself. */
export interface CollectorStats {
  collections: number;
  failures: number;
  /** Epoch ms of the last collection that produced samples. */
  lastSuccessMs: number | null;
  lastError: string | null;
  lastSamples: number;
  samplesTotal: number;
  /** Samples the sink rejected (cumulative). */
  sinkRejected: number;
  /** False once the source is known to be absent (no nvidia-smi, no /proc): the collector then stays quiet. */
  available: boolean;
}

export function emptyStats(): CollectorStats {
  return { collections: 0, failures: 0, lastSuccessMs: null, lastError: null, lastSamples: 0, samplesTotal: 0, sinkRejected: 0, available: true };
}

/** The logger subset the collectors use. */
interface LatchLogger {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
}

/**
 * Failure bookkeeping shared by the collectors: every failure is counted in `stats`, but a run of
 * failures is logged once (a warn) and the recovery once (an info) — never a line per interval.
 */
export function failureLatch(stats: CollectorStats, logger: LatchLogger, node: string, recoveredMsg: string) {
  let failing = false;
  return {
    fail(error: string, warnMsg: string): void {
      stats.failures++;
      stats.lastError = error;
      if (!failing) {
        failing = true;
        logger.warn({ node, err: error }, `${warnMsg} (logged again only after it recovers)`);
      }
    },
    /** Writes samples to the sink; true when they were written (success is recorded). */
    async write(sink: ResourceSink, samples: ResourceSample[], ts: number, warnMsg: string): Promise<boolean> {
      try {
        const reply = await sink.writeResources(samples);
        stats.sinkRejected += reply.rejected.length;
      } catch (e) {
        this.fail(`sink: ${e instanceof Error ? e.message : String(e)}`, warnMsg);
        return false;
      }
      stats.lastSamples = samples.length;
      stats.samplesTotal += samples.length;
      stats.lastSuccessMs = ts;
      if (failing) {
        failing = false;
        logger.info({ node }, recoveredMsg);
      }
      return true;
    },
  };
}
