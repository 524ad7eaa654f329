/** The pipeline: validate → normalise → limit cardinality → batch → store. */
export type { EventSink, ResourceSink, FeedbackSink, Sink, WriteOptions } from './sink.ts';
