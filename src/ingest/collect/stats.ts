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
