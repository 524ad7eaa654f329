// OpenInference around the real openai client, exporting with the OTel SDK's BatchSpanProcessor
// and OTLP/HTTP JSON exporter, in two passes:
// 1. @arizeai/openinference-instrumentation-openai patches the client (model gpt-4o-mini). It ends
//    a span only when the call succeeds: a call that fails (HTTP error, abort, timeout) leaves its
//    span open, so it is never exported (4.2.7; the promise's rejection is not hooked).
// 2. The instrumentation is disabled and each call is wrapped with openinference-core's traceLLM,
//    as a service that traces its own model calls does (model gpt-4o): those spans end on failure
//    too, with status ERROR and an exception event.
// Tenant, user and session are set with openinference-core's context setters (metadata, user,
// session), around an OpenInference CHAIN span.
'use strict';
const { context, trace } = require('@opentelemetry/api');
const { OTLPTraceExporter } = require('@opentelemetry/exporter-trace-otlp-http');
const { resourceFromAttributes } = require('@opentelemetry/resources');
const { BatchSpanProcessor, NodeTracerProvider } = require('@opentelemetry/sdk-trace-node');
const { OpenAIInstrumentation } = require('@arizeai/openinference-instrumentation-openai');
const { getLLMAttributes, setMetadata, setSession, setUser, traceLLM } = require('@arizeai/openinference-core');
const { printable, runScenarios } = require('./scenarios.cjs');

const provider = new NodeTracerProvider({
  resource: resourceFromAttributes({ 'service.name': 'rag-api', 'host.name': 'node-b' }),
  spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter({ url: process.env.OTLP_TRACES_URL }))],
});
provider.register();
const instrumentation = new OpenAIInstrumentation();
const OpenAI = require('openai');

const tracer = trace.getTracer('rag-api');

/** The caller's context: tenant in OpenInference metadata, user and session. */
function inCallerContext(scenario, fn) {
  let ctx = setMetadata(context.active(), { tenant: 'globex', plan: 'pro' });
  ctx = setUser(ctx, { userId: 'u-43' });
  ctx = setSession(ctx, { sessionId: 's-8' });
  // An OpenInference CHAIN span around the call (what a RAG pipeline records): not inference.
  return context.with(ctx, () =>
    tracer.startActiveSpan(`chain ${scenario}`, { attributes: { 'openinference.span.kind': 'CHAIN' } }, async (span) => {
      try {
        return await fn();
      } finally {
        span.end();
      }
    }),
  );
}

async function main() {
  const auto = await runScenarios(OpenAI.OpenAI, inCallerContext, 'gpt-4o-mini');
  instrumentation.disable();
  const manual = await runScenarios(
    OpenAI.OpenAI,
    (scenario, fn) =>
      inCallerContext(scenario, () =>
        traceLLM(fn, {
          name: 'chat gpt-4o',
          attributes: getLLMAttributes({
            provider: 'openai',
            system: 'openai',
            requestModelName: 'gpt-4o',
            invocationParameters: { model: 'gpt-4o', temperature: 0.2, max_tokens: 64 },
          }),
          processInput: () => ({}),
          processOutput: (r) =>
            r.response
              ? getLLMAttributes({
                  responseModelName: r.response.model,
                  tokenCount: { prompt: r.response.usage.prompt_tokens, completion: r.response.usage.completion_tokens, total: r.response.usage.total_tokens },
                })
              : {},
        })(),
      ),
    'gpt-4o',
  );
  await provider.shutdown();
  process.stdout.write(`${JSON.stringify({ auto: printable(auto), manual: printable(manual) })}\n`);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
