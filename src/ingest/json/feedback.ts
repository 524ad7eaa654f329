/** `POST /v1/feedback`: feedback and business events, JSON or NDJSON. */
import type { Feedback, IngestReply } from '../../schema/index.ts';
import type { FeedbackSink } from '../../pipeline/index.ts';
import { parseRows } from './rows.ts';

export async function ingestFeedback(body: Buffer, contentType: string | null | undefined, sink: FeedbackSink): Promise<IngestReply> {
  const parsed = parseRows(body, contentType);
  const reply = parsed.rows.length > 0 ? await sink.writeFeedback(parsed.rows as Feedback[]) : { accepted: 0, rejected: [] };
  const rejected = [...parsed.malformed, ...reply.rejected.map((r) => ({ ...r, index: parsed.indexes[r.index] ?? r.index }))].sort((a, b) => a.index - b.index);
  return { accepted: reply.accepted, rejected };
}
