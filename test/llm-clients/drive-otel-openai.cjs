// @opentelemetry/instrumentation-openai (OTel GenAI semantic conventions) around the real openai
// client, exporting with the OTel SDK's BatchSpanProcessor and OTLP/HTTP JSON exporter. Tenant and
// user travel as W3C baggage and the real BaggageSpanProcessor copies them onto every span, the
// usual way to get request context onto spans an instrumentation creates.
'use strict';
const { context, propagation, trace } = require('@opentelemetry/api');
const { ALLOW_ALL_BAGGAGE_KEYS, BaggageSpanProcessor } = require('@opentelemetry/baggage-span-processor');
const { OTLPMetricExporter } = require('@opentelemetry/exporter-metrics-otlp-http');
const { OTLPTraceExporter } = require('@opentelemetry/exporter-trace-otlp-http');
const { resourceFromAttributes } = require('@opentelemetry/resources');
const { MeterProvider, PeriodicExportingMetricReader } = require('@opentelemetry/sdk-metrics');
const { BatchSpanProcessor, NodeTracerProvider } = require('@opentelemetry/sdk-trace-node');
const { OpenAIInstrumentation } = require('@opentelemetry/instrumentation-openai');
const { printable, runScenarios } = require('./scenarios.cjs');

const resource = resourceFromAttributes({ 'service.name': 'chat-gateway', 'service.version': '2.0.1', 'host.name': 'node-a' });
const provider = new NodeTracerProvider({
  resource,
  spanProcessors: [new BaggageSpanProcessor(ALLOW_ALL_BAGGAGE_KEYS), new BatchSpanProcessor(new OTLPTraceExporter({ url: process.env.OTLP_TRACES_URL }))],
});
provider.register();
// The instrumentation also records the GenAI client metrics (operation duration, token usage):
// exported once, at shutdown, to /v1/metrics.
const meterProvider = new MeterProvider({
  resource,
  readers: [new PeriodicExportingMetricReader({ exporter: new OTLPMetricExporter({ url: process.env.OTLP_METRICS_URL }), exportIntervalMillis: 3_600_000 })],
});
new OpenAIInstrumentation().setMeterProvider(meterProvider);
const OpenAI = require('openai');

const tracer = trace.getTracer('chat-gateway');
const baggage = propagation.createBaggage({ 'tenant.id': { value: 'acme' }, 'user.id': { value: 'u-42' }, 'session.id': { value: 's-7' } });

runScenarios(OpenAI.OpenAI ?? OpenAI, (scenario, fn) =>
  context.with(propagation.setBaggage(context.active(), baggage), () =>
    // The service's own request span around the model call: not an inference span.
    tracer.startActiveSpan(`handle ${scenario}`, async (span) => {
      try {
        return await fn();
      } finally {
        span.end();
      }
    }),
  ),
)
  .then(async (outcomes) => {
    await provider.shutdown();
    await meterProvider.shutdown();
    process.stdout.write(`${JSON.stringify(printable(outcomes))}\n`);
  })
  .catch((e) => {
    console.error(e);
    process.exit(1);
  });
