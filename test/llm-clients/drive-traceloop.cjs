// @traceloop/node-server-sdk (OpenLLMetry) around the real openai client, exporting with its own
// OTLP/HTTP protobuf exporter to `${baseUrl}/v1/traces`. Tenant, user and session are Traceloop
// association properties (customer_id, user_id, session_id), set with withAssociationProperties
// inside a workflow span.
'use strict';
const traceloop = require('@traceloop/node-server-sdk');
const OpenAI = require('openai');
const { printable, runScenarios } = require('./scenarios.cjs');

traceloop.initialize({
  appName: 'support-bot',
  baseUrl: process.env.OTLP_BASE_URL,
  apiKey: 'unused-by-inferlens',
  disableBatch: false,
  silenceInitializationMessage: true,
  // The OpenAI class itself: the SDK patches its Chat.Completions prototype.
  instrumentModules: { openAI: OpenAI.OpenAI },
});

runScenarios(OpenAI.OpenAI ?? OpenAI, (scenario, fn) =>
  traceloop.withWorkflow({ name: `answer_${scenario.replace(/-/g, '_')}` }, () =>
    traceloop.withAssociationProperties({ customer_id: 'initech', user_id: 'u-44', session_id: 's-9' }, fn),
  ),
)
  .then(async (outcomes) => {
    await traceloop.forceFlush();
    process.stdout.write(`${JSON.stringify(printable(outcomes))}\n`);
    process.exit(0);
  })
  .catch((e) => {
    console.error(e);
    process.exit(1);
  });
