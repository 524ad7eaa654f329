import { describe, expect, it } from 'vitest';
import { groupSeries, parseExposition, parseFloatStrict } from './parse.ts';

describe('parseFloatStrict', () => {
  it.each([
    ['1', 1],
    ['-1.5', -1.5],
    ['1.15891634176e+011', 115891634176],
    ['7.358146831393242e-05', 7.358146831393242e-5],
    ['+Inf', Infinity],
    ['-Inf', -Infinity],
    ['Inf', Infinity],
    ['.5', 0.5],
    ['8.969000', 8.969],
  ])('%s → %s', (text, value) => {
    expect(parseFloatStrict(text)).toBe(value);
  });
  it('NaN is a number; junk is not', () => {
    expect(parseFloatStrict('NaN')).toBeNaN();
    expect(parseFloatStrict('0x10')).toBeUndefined();
    expect(parseFloatStrict('1,5')).toBeUndefined();
    expect(parseFloatStrict('')).toBeUndefined();
    expect(parseFloatStrict('<html>')).toBeUndefined();
  });
});

describe('parseExposition: Prometheus 0.0.4', () => {
  it('parses escaping in label values and HELP', () => {
    const r = parseExposition(
      ['# HELP m A \\\\ backslash and a\\nnewline, "quotes" stay', '# TYPE m gauge', 'm{path="C:\\\\dir",msg="say \\"hi\\"",multi="a\\nb"} 1'].join('\n'),
    );
    expect(r.warnings).toEqual([]);
    const f = r.families[0]!;
    expect(f.help).toBe('A \\ backslash and a\nnewline, "quotes" stay');
    expect(f.samples[0]!.labels).toEqual({ path: 'C:\\dir', msg: 'say "hi"', multi: 'a\nb' });
  });

  it('reads NaN, ±Inf, exponents and millisecond timestamps', () => {
    const r = parseExposition('a NaN\nb +Inf 1700000000000\nc -Inf\nd 1.5e+09 -5\n');
    expect(r.format).toBe('prometheus');
    const [a, b, c, d] = r.families.map((f) => f.samples[0]!);
    expect(a!.value).toBeNaN();
    expect(b).toMatchObject({ value: Infinity, timestampMs: 1_700_000_000_000 });
    expect(c!.value).toBe(-Infinity);
    expect(d).toMatchObject({ value: 1.5e9, timestampMs: -5 });
    expect(r.families.map((f) => f.type)).toEqual(['untyped', 'untyped', 'untyped', 'untyped']);
  });

  it('accepts trailing commas, spaces in label sets, blank lines, free comments and no final newline', () => {
    const r = parseExposition('# a free-text comment\n\n# TYPE x counter\nx{a="1",} 2\n\n# NOTE something\nx{ a = "2" , b="3" } 3\n# TYPE y gauge\ny 4');
    expect(r.warnings).toEqual([]);
    expect(r.families).toHaveLength(2);
    expect(r.families[0]!.samples.map((s) => s.labels)).toEqual([{ a: '1' }, { a: '2', b: '3' }]);
    expect(r.families[1]!.samples[0]!.value).toBe(4);
  });

  it('HELP without text and TYPE without HELP', () => {
    const r = parseExposition('# HELP a\n# TYPE a gauge\na 1\n# TYPE b counter\nb 2\n');
    expect(r.warnings).toEqual([]);
    expect(r.families.map((f) => [f.name, f.type, f.help])).toEqual([
      ['a', 'gauge', ''],
      ['b', 'counter', ''],
    ]);
  });

  it('groups histogram _sum/_count written before _bucket, and summary quantiles', () => {
    const r = parseExposition(
      [
        '# TYPE h histogram',
        'h_count{m="x"} 3',
        'h_sum{m="x"} 0.9',
        'h_bucket{m="x",le="0.1"} 1',
        'h_bucket{m="x",le="1.0"} 3',
        'h_bucket{m="x",le="+Inf"} 3',
        '# TYPE s summary',
        's{quantile="0.5"} 0.2',
        's{quantile="0.99"} 0.7',
        's_sum 1.2',
        's_count 4',
      ].join('\n'),
    );
    expect(r.warnings).toEqual([]);
    expect(r.families).toHaveLength(2);
    expect(r.sampleCount).toBe(9);
    expect(groupSeries(r.families[0]!)).toEqual([
      {
        labels: { m: 'x' },
        count: 3,
        sum: 0.9,
        buckets: [
          { le: 0.1, count: 1 },
          { le: 1, count: 3 },
          { le: Infinity, count: 3 },
        ],
        quantiles: [],
      },
    ]);
    expect(groupSeries(r.families[1]!)).toEqual([
      {
        labels: {},
        count: 4,
        sum: 1.2,
        buckets: [],
        quantiles: [
          { quantile: 0.5, value: 0.2 },
          { quantile: 0.99, value: 0.7 },
        ],
      },
    ]);
  });

  it('Triton-style bucket samples without the _bucket suffix still group as buckets', () => {
    const r = parseExposition('# TYPE t histogram\nt_count 2\nt_sum 9\nt{le="5"} 1\nt{ le="+Inf"} 2\n');
    expect(groupSeries(r.families[0]!)[0]!.buckets).toEqual([
      { le: 5, count: 1 },
      { le: Infinity, count: 2 },
    ]);
  });

  it('a family declared twice is merged and counted as one warning, not a crash', () => {
    const r = parseExposition('# HELP a first\n# TYPE a gauge\na{x="1"} 1\n# HELP a second\n# TYPE a gauge\na{x="2"} 2\n');
    expect(r.families).toHaveLength(1);
    expect(r.families[0]!.samples).toHaveLength(2);
    expect(r.families[0]!.help).toBe('second');
    expect(r.warnings).toEqual([{ line: 4, reason: 'duplicate_family', message: expect.stringContaining('declared twice') }]);
    expect(r.badLines).toBe(0);
  });

  it('skips and reports bad lines with their line numbers, keeping the good ones', () => {
    const r = parseExposition(
      ['good 1', 'bad_value abc', '{no_name="x"} 1', 'unterminated{a="1} 2', 'too many 1 2 3', 'ts_bad 1 1.5', '# TYPE t nonsense', 'good2 2'].join('\n'),
    );
    expect(r.families.map((f) => f.name)).toEqual(['good', 'good2']);
    expect(r.warnings.map((w) => [w.line, w.reason])).toEqual([
      [2, 'bad_value'],
      [3, 'bad_metric_name'],
      [4, 'bad_labels'],
      [5, 'bad_value'],
      [6, 'bad_timestamp'],
      [7, 'bad_type'],
    ]);
    expect(r.badLines).toBe(6);
  });

  it('bounds the warnings it keeps and the samples it accepts', () => {
    const junk = Array.from({ length: 30 }, () => 'x y z w').join('\n');
    const r = parseExposition(junk, { maxWarnings: 5 });
    expect(r.warnings).toHaveLength(5);
    expect(r.warningsDropped).toBe(25);
    const many = Array.from({ length: 10 }, (_, i) => `m{i="${i}"} ${i}`).join('\n');
    const r2 = parseExposition(many, { maxSamples: 4 });
    expect(r2.sampleCount).toBe(4);
    expect(r2.warnings.map((w) => w.reason)).toEqual(['too_many_samples']);
  });

  it('handles CRLF line endings', () => {
    const r = parseExposition('# TYPE a gauge\r\na 1\r\n');
    expect(r.warnings).toEqual([]);
    expect(r.families[0]!.samples[0]!.value).toBe(1);
  });

  it('an HTML error page yields warnings and no samples', () => {
    const r = parseExposition('<html>\n<body>502 Bad Gateway</body>\n</html>\n');
    expect(r.sampleCount).toBe(0);
    expect(r.badLines).toBe(3);
  });
});

describe('parseExposition: OpenMetrics 1.0', () => {
  const body = [
    '# TYPE acme_http_router_request_seconds summary',
    '# UNIT acme_http_router_request_seconds seconds',
    '# HELP acme_http_router_request_seconds Latency though all of ACME\'s HTTP request router \\"x\\".',
    'acme_http_router_request_seconds_sum{path="/api/v1",method="GET"} 9036.32',
    'acme_http_router_request_seconds_count{path="/api/v1",method="GET"} 807283.0',
    'acme_http_router_request_seconds_created{path="/api/v1",method="GET"} 1605281325.0',
    '# TYPE foo histogram',
    'foo_bucket{le="0.01"} 0',
    'foo_bucket{le="0.1"} 8 # {trace_id="KOO5S4vxi0o"} 0.067 1520879607.789',
    'foo_bucket{le="+Inf"} 17 # {} 2.0',
    'foo_count 17',
    'foo_sum 324789.3',
    '# TYPE req counter',
    'req_total{code="200"} 5 1520879607.789',
    'req_created{code="200"} 1520430000.123',
    '# TYPE build info',
    'build_info{version="1.2"} 1',
    '# EOF',
  ].join('\n');

  it('detects the format from # EOF, reads seconds timestamps, exemplars, _total/_created/_info', () => {
    const r = parseExposition(body);
    expect(r.format).toBe('openmetrics');
    expect(r.sawEof).toBe(true);
    expect(r.warnings).toEqual([]);
    expect(r.families.map((f) => [f.name, f.type, f.samples.length])).toEqual([
      ['acme_http_router_request_seconds', 'summary', 3],
      ['foo', 'histogram', 5],
      ['req', 'counter', 2],
      ['build', 'info', 1],
    ]);
    expect(r.families[0]!.unit).toBe('seconds');
    expect(r.families[0]!.help).toBe('Latency though all of ACME\'s HTTP request router "x".');
    expect(r.families[1]!.samples[1]!.exemplar).toEqual({ labels: { trace_id: 'KOO5S4vxi0o' }, value: 0.067, timestampMs: 1520879607789 });
    expect(r.families[1]!.samples[2]!.exemplar).toEqual({ labels: {}, value: 2 });
    expect(r.families[2]!.samples[0]!.timestampMs).toBe(1520879607789);
  });

  it('reports content after # EOF', () => {
    const r = parseExposition('a 1\n# EOF\nb 2\n');
    expect(r.families.map((f) => f.name)).toEqual(['a']);
    expect(r.warnings.map((w) => [w.line, w.reason])).toEqual([[3, 'content_after_eof']]);
  });

  it('takes the format from the content type', () => {
    expect(parseExposition('a 1 1.5', { contentType: 'application/openmetrics-text; version=1.0.0' }).families[0]!.samples[0]!.timestampMs).toBe(1500);
  });

  it('rejects a malformed exemplar but keeps the rest', () => {
    const r = parseExposition('# TYPE foo histogram\nfoo_bucket{le="1"} 1 # trace 1\nfoo_count 1\n# EOF\n');
    expect(r.warnings.map((w) => [w.line, w.reason])).toEqual([[2, 'bad_exemplar']]);
    expect(r.sampleCount).toBe(1);
  });
});
