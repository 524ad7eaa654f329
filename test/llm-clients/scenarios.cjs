// The calls every instrumentation driver makes with the real `openai` client against the
// OpenAI-compatible test server (openai-compatible-server.ts picks the answer by the message).
// Plain CommonJS on purpose: the instrumentations patch `openai` through require hooks, as they do
// in a user's service. Prints one JSON line: what the client saw for each call.
'use strict';

/** Scenario word → how the call is made. `abort` and `timeout` both ask for the `slow` answer. */
const SCENARIOS = ['ok', 'stream', 'length', 'rate-limit', 'server-error', 'overloaded', 'unauthorized', 'no-model', 'too-long', 'abort', 'timeout'];
const MODEL = 'gpt-4o-mini';

async function call(client, scenario, model) {
  const word = scenario === 'abort' || scenario === 'timeout' ? 'slow' : scenario;
  const body = { model, messages: [{ role: 'user', content: word }], temperature: 0.2, max_tokens: 64 };
  const options = {};
  if (scenario === 'abort') {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 150);
    options.signal = controller.signal;
  }
  if (scenario === 'timeout') options.timeout = 150;
  if (scenario === 'stream') {
    const s = await client.chat.completions.create({ ...body, stream: true, stream_options: { include_usage: true } }, options);
    let text = '';
    for await (const chunk of s) text += chunk.choices[0]?.delta?.content ?? '';
    return { scenario, ok: true, text };
  }
  const r = await client.chat.completions.create(body, options);
  return { scenario, ok: true, text: r.choices[0].message.content, response: r };
}

/**
 * Runs every scenario in order, each inside `around(scenario, fn)` (the family's way of attaching
 * tenant and user), and returns what happened: the answer (`response`: the completion object,
 * not printed), or the error class and HTTP status.
 */
async function runScenarios(OpenAI, around, model = MODEL) {
  const client = new OpenAI({ baseURL: process.env.OPENAI_BASE_URL, apiKey: 'sk-test', maxRetries: 0 });
  const outcomes = [];
  for (const scenario of SCENARIOS) {
    try {
      outcomes.push(await around(scenario, () => call(client, scenario, model)));
    } catch (e) {
      outcomes.push({ scenario, ok: false, error: e && e.constructor ? e.constructor.name : String(e), status: e && e.status });
    }
  }
  return outcomes;
}

/** The outcomes as the driver prints them: without the completion objects. */
function printable(outcomes) {
  return outcomes.map(({ response: _response, ...rest }) => rest);
}

module.exports = { SCENARIOS, MODEL, runScenarios, printable };
