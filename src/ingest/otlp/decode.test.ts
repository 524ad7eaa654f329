import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { InferlensError } from '../../schema/index.ts';
import { decodeMetricsRequest, decodeTraceRequest, encodingOf, otlpType } from './decode.ts';

const FIXTURES = resolve(import.meta.dirname, '../../../test/fixtures/otlp');
const fixture = (name: string): Uint8Array => readFileSync(resolve(FIXTURES, name));
const json = (v: unknown): Uint8Array => new TextEncoder().encode(JSON.stringify(v));
const hex = (s: string): Uint8Array => Buffer.from(s, 'hex');

function invalid(fn: () => unknown): InferlensError {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(InferlensError);
    expect((e as InferlensError).code).toBe('invalid_argument');
    return e as InferlensError;
  }
  throw new Error('expected invalid_argument');
}

describe('encodingOf', () => {
  it('reads the OTLP content types, parameters ignored', () => {
    expect(encodingOf('application/json')).toBe('json');
    expect(encodingOf('Application/JSON; charset=utf-8')).toBe('json');
    expect(encodingOf('application/x-protobuf')).toBe('protobuf');
    expect(encodingOf('application/protobuf')).toBe('protobuf');
  });
  it('rejects anything else with a reason', () => {
    expect(invalid(() => encodingOf('text/plain')).message).toMatch(/unsupported content type "text\/plain".*application\/x-protobuf/);
  });
});

describe('decodeTraceRequest: the opentelemetry-proto example trace.json', () => {
  it('decodes every field with exact values', () => {
    const req = decodeTraceRequest(fixture('trace.json'), 'application/json');
    expect(req.malformed).toEqual([]);
    expect(req.spans).toEqual([
      {
        index: 0,
        traceId: '5b8efff798038103d269b633813fc60c',
        spanId: 'eee19b7ec3c1b174',
        parentSpanId: 'eee19b7ec3c1b173',
        name: "I'm a server span",
        kind: 2,
        startTimeUnixNano: 1544712660000000000n,
        endTimeUnixNano: 1544712661000000000n,
        attributes: new Map([['my.span.attr', 'some value']]),
        events: [],
        statusCode: 0,
        statusMessage: '',
        resource: new Map([['service.name', 'my.service']]),
      },
    ]);
  });

  it('decodes the same request sent as protobuf to the same spans', () => {
    const type = otlpType('ExportTraceServiceRequest');
    const body = type
      .encode(
        type.fromObject({
          resourceSpans: [
            {
              resource: { attributes: [{ key: 'service.name', value: { stringValue: 'my.service' } }] },
              scopeSpans: [
                {
                  scope: { name: 'my.library', version: '1.0.0' },
                  spans: [
                    {
                      traceId: hex('5B8EFFF798038103D269B633813FC60C'),
                      spanId: hex('EEE19B7EC3C1B174'),
                      parentSpanId: hex('EEE19B7EC3C1B173'),
                      name: "I'm a server span",
                      startTimeUnixNano: '1544712660000000000',
                      endTimeUnixNano: '1544712661000000000',
                      kind: 2,
                      attributes: [{ key: 'my.span.attr', value: { stringValue: 'some value' } }],
                    },
                  ],
                },
              ],
            },
          ],
        }),
      )
      .finish();
    expect(decodeTraceRequest(body, 'application/x-protobuf')).toEqual(decodeTraceRequest(fixture('trace.json'), 'application/json'));
  });
});

describe('decodeTraceRequest: the tolerant OTLP/JSON reading', () => {
  const span = (s: Record<string, unknown>) => json({ resourceSpans: [{ scopeSpans: [{ spans: [s] }] }] });

  it('accepts enum names, int64 as numbers, snake_case keys, base64 ids and every AnyValue kind', () => {
    const [s] = decodeTraceRequest(
      span({
        trace_id: Buffer.from('5b8efff798038103d269b633813fc60c', 'hex').toString('base64'),
        spanId: 'eee19b7ec3c1b174',
        kind: 'SPAN_KIND_CLIENT',
        start_time_unix_nano: 1_544_712_660_000_000_000,
        endTimeUnixNano: '1544712661000000000',
        status: { code: 'STATUS_CODE_ERROR', message: 'boom' },
        attributes: [
          { key: 's', value: { stringValue: 'x' } },
          { key: 'b', value: { boolValue: true } },
          { key: 'i', value: { intValue: '42' } },
          { key: 'd', value: { doubleValue: 0.5 } },
          { key: 'a', value: { arrayValue: { values: [{ stringValue: 'stop' }, { intValue: 7 }] } } },
          { key: 'kv', value: { kvlistValue: { values: [{ key: 'k', value: { boolValue: false } }] } } },
          { key: 'bytes', value: { bytesValue: 'AQI=' } },
          { key: 'empty', value: {} },
        ],
        events: [{ timeUnixNano: '1544712660200000000', name: 'first_token' }],
      }),
      'application/json',
    ).spans;
    expect(s).toMatchObject({
      traceId: '5b8efff798038103d269b633813fc60c',
      kind: 3,
      statusCode: 2,
      statusMessage: 'boom',
      startTimeUnixNano: 1544712660000000000n,
    });
    expect(Object.fromEntries(s!.attributes)).toEqual({ s: 'x', b: true, i: 42, d: 0.5, a: ['stop', 7], kv: { k: false }, bytes: 'AQI=', empty: null });
    expect(s!.events).toEqual([{ timeUnixNano: 1544712660200000000n, name: 'first_token', attributes: new Map() }]);
  });

  it('treats an all-zero id as absent and an empty request as no spans', () => {
    expect(decodeTraceRequest(span({ traceId: '00000000000000000000000000000000' }), 'application/json').spans[0]!.traceId).toBe('');
    expect(decodeTraceRequest(json({}), 'application/json')).toEqual({ spans: [], malformed: [] });
    expect(decodeTraceRequest(new Uint8Array(), 'application/x-protobuf')).toEqual({ spans: [], malformed: [] });
  });

  it('reports a span entry that is not an object and keeps the others', () => {
    const req = decodeTraceRequest(json({ resourceSpans: [{ scopeSpans: [{ spans: [42, { name: 'ok' }] }] }] }), 'application/json');
    expect(req.malformed).toEqual([{ index: 0, reason: 'not a Span object' }]);
    expect(req.spans.map((s) => [s.index, s.name])).toEqual([[1, 'ok']]);
  });
});

describe('bodies that do not decode: invalid_argument with a reason', () => {
  it('JSON that is not JSON', () => {
    expect(invalid(() => decodeTraceRequest(new TextEncoder().encode('{"resourceSpans": ['), 'application/json')).message).toMatch(
      /^body is not JSON \(.+\): send an OTLP\/JSON ExportTraceServiceRequest$/,
    );
  });
  it('JSON of the wrong shape', () => {
    expect(invalid(() => decodeTraceRequest(json([1, 2]), 'application/json')).message).toMatch(/expected a JSON object with "resourceSpans"/);
    expect(invalid(() => decodeTraceRequest(json({ resourceSpans: {} }), 'application/json')).message).toMatch(/"resourceSpans" must be an array/);
    expect(invalid(() => decodeMetricsRequest(json({ resourceMetrics: 'x' }), 'application/json')).message).toMatch(/"resourceMetrics" must be an array/);
  });
  it('protobuf that is truncated or not protobuf', () => {
    // Field 1, length-delimited, length 255, but no bytes follow.
    expect(invalid(() => decodeTraceRequest(Uint8Array.from([0x0a, 0xff, 0x01]), 'application/x-protobuf')).message).toMatch(
      /^body does not decode as a protobuf ExportTraceServiceRequest \(.+\)/,
    );
    // JSON text sent with the protobuf content type.
    expect(invalid(() => decodeMetricsRequest(json({ resourceMetrics: [] }), 'application/x-protobuf')).message).toMatch(
      /does not decode as a protobuf ExportMetricsServiceRequest/,
    );
  });
});
