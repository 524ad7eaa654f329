/**
 * An in-memory EventSink & ResourceSink for the OTLP tests: it records what it is given and
 * rejects rows the way the pipeline would (the schema's own checks), so a test also shows that the
 * mapped rows are valid events and samples.
 */
import type { EventSink, ResourceSink } from '../../pipeline/index.ts';
import { checkEvent, ResourceSampleSchema } from '../../schema/index.ts';
import type { IngestReply, ResourceSample, RowIssue } from '../../schema/index.ts';

export interface MemorySink extends EventSink, ResourceSink {
  events: unknown[];
  samples: ResourceSample[];
}

/** `nowMs` bounds event timestamps in the future, as the pipeline does. */
export function memorySink(nowMs: number = Date.now()): MemorySink {
  const sink: MemorySink = {
    events: [],
    samples: [],
    async writeEvents(rows: readonly unknown[]): Promise<IngestReply> {
      const rejected: RowIssue[] = [];
      rows.forEach((row, index) => {
        const { issues } = checkEvent(row, nowMs);
        if (issues.length === 0) sink.events.push(row);
        else for (const i of issues) rejected.push({ index, path: i.path, message: i.message });
      });
      return { accepted: rows.length - new Set(rejected.map((r) => r.index)).size, rejected };
    },
    async writeResources(samples: readonly ResourceSample[]) {
      const rejected: RowIssue[] = [];
      samples.forEach((s, index) => {
        const r = ResourceSampleSchema.safeParse(s);
        if (r.success) sink.samples.push(s);
        else rejected.push({ index, path: r.error.issues[0]?.path.join('.') ?? '', message: r.error.issues[0]?.message ?? 'invalid' });
      });
      return { accepted: samples.length - rejected.length, rejected };
    },
  };
  return sink;
}
