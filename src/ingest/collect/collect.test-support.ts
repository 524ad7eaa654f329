/** Test doubles shared by the collector tests: a validating in-memory sink and a recording logger. */
import type { ResourceSink } from '../../pipeline/index.ts';
import type { ResourceSample } from '../../schema/index.ts';
import { ResourceSampleSchema } from '../../schema/index.ts';
import type { Logger } from '../scrape/index.ts';

export function memorySink(): ResourceSink & { samples: ResourceSample[] } {
  const sink = {
    samples: [] as ResourceSample[],
    async writeResources(batch: readonly ResourceSample[]) {
      for (const s of batch) ResourceSampleSchema.parse(s);
      sink.samples.push(...batch);
      return { accepted: batch.length, rejected: [] };
    },
  };
  return sink;
}

export function recordingLogger(): Logger & { lines: { level: string; msg: string | undefined }[] } {
  const lines: { level: string; msg: string | undefined }[] = [];
  return {
    lines,
    info: (_o, msg) => lines.push({ level: 'info', msg }),
    warn: (_o, msg) => lines.push({ level: 'warn', msg }),
    error: (_o, msg) => lines.push({ level: 'error', msg }),
  };
}
