/** `POST /v1/events`: JSON or NDJSON rows → the pipeline, with per-row rejects in body order. */
import { InferlensError } from '../../schema/index.ts';
import type { IngestReply } from '../../schema/index.ts';
import type { EventSink } from '../../pipeline/index.ts';
import { parseRows } from './rows.ts';

export async function ingestEvents(body: Buffer, contentType: string | null | undefined, sink: EventSink): Promise<IngestReply> {
  const parsed = parseRows(body, contentType);
  if (parsed.rows.length === 0 && parsed.malformed.length === 0) {
    throw new InferlensError('invalid_argument', 'the body holds no events: send a JSON array or NDJSON lines');
  }
  const reply = parsed.rows.length > 0 ? await sink.writeEvents(parsed.rows, { lines: parsed.lines }) : { accepted: 0, rejected: [] };
  // Map the sink's indexes (positions among parsed rows) back to positions in the body.
  const rejected = [...parsed.malformed, ...reply.rejected.map((r) => ({ ...r, index: parsed.indexes[r.index] ?? r.index }))].sort((a, b) => a.index - b.index);
  const out: IngestReply = { accepted: reply.accepted, rejected };
  if (reply.warnings) out.warnings = reply.warnings.map((w) => ({ ...w, index: parsed.indexes[w.index] ?? w.index }));
  return out;
}
