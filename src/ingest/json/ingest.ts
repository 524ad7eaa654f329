/**
 * `POST /v1/events`, `/v1/feedback` and `/v1/resources`: a JSON or NDJSON body → rows → the
 * pipeline, with per-row rejects in body order.
 */
import { InferlensError } from '../../schema/index.ts';
import type { Feedback, IngestReply, ResourceSample } from '../../schema/index.ts';
import type { EventSink, FeedbackSink, ResourceSink } from '../../pipeline/index.ts';
import { parseRows } from './rows.ts';
import type { ParsedRows } from './rows.ts';

/** The sink's reply in body positions (its indexes count parsed rows), with the rows that did not parse. */
function inBody(parsed: ParsedRows, reply: IngestReply): IngestReply {
  const at = (i: number) => parsed.indexes[i] ?? i;
  const rejected = [...parsed.malformed, ...reply.rejected.map((r) => ({ ...r, index: at(r.index) }))].sort((a, b) => a.index - b.index);
  const out: IngestReply = { accepted: reply.accepted, rejected };
  if (reply.warnings) out.warnings = reply.warnings.map((w) => ({ ...w, index: at(w.index) }));
  return out;
}

async function parse(body: Buffer, contentType: string | null | undefined, what: string): Promise<ParsedRows> {
  const parsed = await parseRows(body, contentType);
  if (parsed.rows.length === 0 && parsed.malformed.length === 0) {
    throw new InferlensError('invalid_argument', `the body holds no ${what}: send a JSON array or NDJSON lines`);
  }
  return parsed;
}

const none: IngestReply = { accepted: 0, rejected: [] };

/** Events: the NDJSON text of each row goes along, so rows that need no rewriting are stored as sent. */
export async function ingestEvents(body: Buffer, contentType: string | null | undefined, sink: EventSink): Promise<IngestReply> {
  const parsed = await parse(body, contentType, 'events');
  const reply = parsed.rows.length > 0 ? await sink.writeEvents(parsed.rows, parsed.lines ? { lines: parsed.lines } : {}) : none;
  return inBody(parsed, reply);
}

/** Feedback and business events. */
export async function ingestFeedback(body: Buffer, contentType: string | null | undefined, sink: FeedbackSink): Promise<IngestReply> {
  const parsed = await parse(body, contentType, 'feedback rows');
  // The rows are unvalidated; the pipeline checks each one against FeedbackSchema.
  return inBody(parsed, parsed.rows.length > 0 ? await sink.writeFeedback(parsed.rows as Feedback[]) : none);
}

/** Resource samples. */
export async function ingestResources(body: Buffer, contentType: string | null | undefined, sink: ResourceSink): Promise<IngestReply> {
  const parsed = await parse(body, contentType, 'resource samples');
  // The rows are unvalidated; the pipeline checks each one against ResourceSampleSchema.
  return inBody(parsed, parsed.rows.length > 0 ? await sink.writeResources(parsed.rows as ResourceSample[]) : none);
}
