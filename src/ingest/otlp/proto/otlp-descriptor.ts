/**
 * The OTLP messages inferlens decodes and encodes, as a protobufjs JSON descriptor.
 *
 * Message names, field numbers, wire types and oneofs are those of opentelemetry-proto v1 (the
 * stable `opentelemetry.proto.{common,resource,trace,metrics,collector}.v1` packages, Apache-2.0,
 * https://github.com/open-telemetry/opentelemetry-proto). Only the wire contract matters for
 * decoding, so this descriptor is our own transcription of it rather than a copy of the .proto
 * text; the tests check it against the OpenTelemetry JS SDK's own encoders (trace exporter,
 * metrics serializer, response deserializers).
 *
 * Field names are the proto3 JSON names (lowerCamelCase), the names the OTLP/JSON mapping uses, so
 * a decoded protobuf message turned into a plain object has the same keys as an OTLP/JSON body.
 * Logs, profiles and deprecated fields are left out: protobuf skips unknown fields on decode.
 */
import type { INamespace, IType } from 'protobufjs';

type FieldJSON = { type: string; id: number; rule?: 'repeated'; options?: Record<string, boolean> };

/** A proto3 message: scalar repeated fields packed, no field presence except where marked. */
function message(fields: Record<string, FieldJSON>, oneofs: Record<string, string[]> = {}): IType {
  const all = { ...oneofs };
  // proto3 `optional` fields get presence through a synthetic oneof named `_<field>`, as protoc does.
  for (const [name, field] of Object.entries(fields)) if (field.options?.proto3_optional) all[`_${name}`] = [name];
  const t: IType & { edition: string } = { edition: 'proto3', fields };
  if (Object.keys(all).length > 0) t.oneofs = Object.fromEntries(Object.entries(all).map(([k, v]) => [k, { oneof: v }]));
  return t;
}

const f = (type: string, id: number): FieldJSON => ({ type, id });
/** A proto3 `optional` field: presence is tracked, so an explicit 0 is encoded. */
const opt = (type: string, id: number): FieldJSON => ({ type, id, options: { proto3_optional: true } });
const many = (type: string, id: number): FieldJSON => ({ type, id, rule: 'repeated' });

export const OTLP_DESCRIPTOR: INamespace = {
  nested: {
    otlp: {
      nested: {
        // opentelemetry.proto.common.v1
        AnyValue: message(
          {
            stringValue: f('string', 1),
            boolValue: f('bool', 2),
            intValue: f('int64', 3),
            doubleValue: f('double', 4),
            arrayValue: f('ArrayValue', 5),
            kvlistValue: f('KeyValueList', 6),
            bytesValue: f('bytes', 7),
          },
          { value: ['stringValue', 'boolValue', 'intValue', 'doubleValue', 'arrayValue', 'kvlistValue', 'bytesValue'] },
        ),
        ArrayValue: message({ values: many('AnyValue', 1) }),
        KeyValueList: message({ values: many('KeyValue', 1) }),
        KeyValue: message({ key: f('string', 1), value: f('AnyValue', 2) }),
        InstrumentationScope: message({
          name: f('string', 1),
          version: f('string', 2),
          attributes: many('KeyValue', 3),
          droppedAttributesCount: f('uint32', 4),
        }),
        // opentelemetry.proto.resource.v1
        Resource: message({ attributes: many('KeyValue', 1), droppedAttributesCount: f('uint32', 2) }),
        // opentelemetry.proto.trace.v1
        ResourceSpans: message({ resource: f('Resource', 1), scopeSpans: many('ScopeSpans', 2), schemaUrl: f('string', 3) }),
        ScopeSpans: message({ scope: f('InstrumentationScope', 1), spans: many('Span', 2), schemaUrl: f('string', 3) }),
        Span: message({
          traceId: f('bytes', 1),
          spanId: f('bytes', 2),
          traceState: f('string', 3),
          parentSpanId: f('bytes', 4),
          flags: f('fixed32', 16),
          name: f('string', 5),
          kind: f('int32', 6), // enum SpanKind: 0 unspecified, 1 internal, 2 server, 3 client, 4 producer, 5 consumer
          startTimeUnixNano: f('fixed64', 7),
          endTimeUnixNano: f('fixed64', 8),
          attributes: many('KeyValue', 9),
          droppedAttributesCount: f('uint32', 10),
          events: many('SpanEvent', 11),
          droppedEventsCount: f('uint32', 12),
          links: many('SpanLink', 13),
          droppedLinksCount: f('uint32', 14),
          status: f('Status', 15),
        }),
        SpanEvent: message({
          timeUnixNano: f('fixed64', 1),
          name: f('string', 2),
          attributes: many('KeyValue', 3),
          droppedAttributesCount: f('uint32', 4),
        }),
        SpanLink: message({
          traceId: f('bytes', 1),
          spanId: f('bytes', 2),
          traceState: f('string', 3),
          attributes: many('KeyValue', 4),
          droppedAttributesCount: f('uint32', 5),
          flags: f('fixed32', 6),
        }),
        Status: message({ message: f('string', 2), code: f('int32', 3) }), // enum StatusCode: 0 unset, 1 ok, 2 error
        // opentelemetry.proto.metrics.v1
        ResourceMetrics: message({ resource: f('Resource', 1), scopeMetrics: many('ScopeMetrics', 2), schemaUrl: f('string', 3) }),
        ScopeMetrics: message({ scope: f('InstrumentationScope', 1), metrics: many('Metric', 2), schemaUrl: f('string', 3) }),
        Metric: message(
          {
            name: f('string', 1),
            description: f('string', 2),
            unit: f('string', 3),
            gauge: f('Gauge', 5),
            sum: f('Sum', 7),
            histogram: f('Histogram', 9),
            exponentialHistogram: f('ExponentialHistogram', 10),
            summary: f('Summary', 11),
            metadata: many('KeyValue', 12),
          },
          { data: ['gauge', 'sum', 'histogram', 'exponentialHistogram', 'summary'] },
        ),
        Gauge: message({ dataPoints: many('NumberDataPoint', 1) }),
        // aggregationTemporality: enum AggregationTemporality: 0 unspecified, 1 delta, 2 cumulative
        Sum: message({ dataPoints: many('NumberDataPoint', 1), aggregationTemporality: f('int32', 2), isMonotonic: f('bool', 3) }),
        Histogram: message({ dataPoints: many('HistogramDataPoint', 1), aggregationTemporality: f('int32', 2) }),
        ExponentialHistogram: message({ dataPoints: many('ExponentialHistogramDataPoint', 1), aggregationTemporality: f('int32', 2) }),
        Summary: message({ dataPoints: many('SummaryDataPoint', 1) }),
        NumberDataPoint: message(
          {
            attributes: many('KeyValue', 7),
            startTimeUnixNano: f('fixed64', 2),
            timeUnixNano: f('fixed64', 3),
            asDouble: f('double', 4),
            asInt: f('sfixed64', 6),
            exemplars: many('Exemplar', 5),
            flags: f('uint32', 8),
          },
          { value: ['asDouble', 'asInt'] },
        ),
        HistogramDataPoint: message({
          attributes: many('KeyValue', 9),
          startTimeUnixNano: f('fixed64', 2),
          timeUnixNano: f('fixed64', 3),
          count: f('fixed64', 4),
          sum: opt('double', 5),
          bucketCounts: many('fixed64', 6),
          explicitBounds: many('double', 7),
          exemplars: many('Exemplar', 8),
          flags: f('uint32', 10),
          min: opt('double', 11),
          max: opt('double', 12),
        }),
        ExponentialHistogramDataPoint: message({
          attributes: many('KeyValue', 1),
          startTimeUnixNano: f('fixed64', 2),
          timeUnixNano: f('fixed64', 3),
          count: f('fixed64', 4),
          sum: opt('double', 5),
          scale: f('sint32', 6),
          zeroCount: f('fixed64', 7),
          positive: f('ExponentialBuckets', 8),
          negative: f('ExponentialBuckets', 9),
          flags: f('uint32', 10),
          exemplars: many('Exemplar', 11),
          min: opt('double', 12),
          max: opt('double', 13),
          zeroThreshold: f('double', 14),
        }),
        ExponentialBuckets: message({ offset: f('sint32', 1), bucketCounts: many('uint64', 2) }),
        SummaryDataPoint: message({
          attributes: many('KeyValue', 7),
          startTimeUnixNano: f('fixed64', 2),
          timeUnixNano: f('fixed64', 3),
          count: f('fixed64', 4),
          sum: f('double', 5),
          quantileValues: many('ValueAtQuantile', 6),
          flags: f('uint32', 8),
        }),
        ValueAtQuantile: message({ quantile: f('double', 1), value: f('double', 2) }),
        Exemplar: message(
          {
            filteredAttributes: many('KeyValue', 7),
            timeUnixNano: f('fixed64', 2),
            asDouble: f('double', 3),
            asInt: f('sfixed64', 6),
            spanId: f('bytes', 4),
            traceId: f('bytes', 5),
          },
          { value: ['asDouble', 'asInt'] },
        ),
        // opentelemetry.proto.collector.trace.v1 / collector.metrics.v1
        ExportTraceServiceRequest: message({ resourceSpans: many('ResourceSpans', 1) }),
        ExportTraceServiceResponse: message({ partialSuccess: f('ExportTracePartialSuccess', 1) }),
        ExportTracePartialSuccess: message({ rejectedSpans: f('int64', 1), errorMessage: f('string', 2) }),
        ExportMetricsServiceRequest: message({ resourceMetrics: many('ResourceMetrics', 1) }),
        ExportMetricsServiceResponse: message({ partialSuccess: f('ExportMetricsPartialSuccess', 1) }),
        ExportMetricsPartialSuccess: message({ rejectedDataPoints: f('int64', 1), errorMessage: f('string', 2) }),
      },
    },
  },
};
