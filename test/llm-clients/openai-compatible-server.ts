/**
 * A loopback server that speaks the OpenAI chat-completions API, for driving the real `openai`
 * client (and the instrumentations that wrap it) through every outcome an inference call can have.
 *
 * What it answers is chosen by the last user message, so a client needs no special setup:
 *
 * | message       | answer                                                                   |
 * | ------------- | ------------------------------------------------------------------------ |
 * | `ok`          | 200, one choice, usage 12 prompt + 5 completion tokens                   |
 * | `stream`      | with `stream: true`: 5 SSE content chunks, `finish_reason: stop`, a usage chunk when `stream_options.include_usage` |
 * | `length`      | 200, `finish_reason: length`                                             |
 * | `rate-limit`  | 429 `rate_limit_exceeded` with `retry-after: 1`                          |
 * | `server-error`| 500 `server_error`                                                       |
 * | `overloaded`  | 503 "The engine is currently overloaded, please try again later"        |
 * | `unauthorized`| 401 `invalid_api_key`                                                    |
 * | `no-model`    | 404 `model_not_found`                                                    |
 * | `too-long`    | 400 `context_length_exceeded`                                            |
 * | `slow`        | nothing until the client goes away (or 10 s): for client aborts and timeouts |
 *
 * The error bodies are the shape OpenAI's API sends (`{"error": {"message", "type", "param", "code"}}`).
 */
import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export const PROMPT_TOKENS = 12;
export const COMPLETION_TOKENS = 5;
/** The model the server says answered (OpenAI answers with a dated snapshot of the requested alias). */
export const RESPONSE_MODEL_SUFFIX = '-2024-07-18';

interface ChatRequest {
  model?: string;
  stream?: boolean;
  stream_options?: { include_usage?: boolean };
  messages?: { role: string; content: unknown }[];
}

interface ErrorReply {
  status: number;
  message: string;
  type: string;
  code: string | null;
  headers?: Record<string, string>;
}

const ERRORS: Record<string, ErrorReply> = {
  'rate-limit': {
    status: 429,
    message: 'Rate limit reached for requests. Please try again in 1s.',
    type: 'requests',
    code: 'rate_limit_exceeded',
    headers: { 'retry-after': '1' },
  },
  'server-error': { status: 500, message: 'The server had an error while processing your request. Sorry about that!', type: 'server_error', code: null },
  overloaded: { status: 503, message: 'The engine is currently overloaded, please try again later', type: 'server_error', code: null },
  unauthorized: {
    status: 401,
    message: 'Incorrect API key provided: sk-test. You can find your API key at your provider.',
    type: 'invalid_request_error',
    code: 'invalid_api_key',
  },
  'no-model': {
    status: 404,
    message: 'The model `gpt-9` does not exist or you do not have access to it.',
    type: 'invalid_request_error',
    code: 'model_not_found',
  },
  'too-long': {
    status: 400,
    message: "This model's maximum context length is 128000 tokens. However, your messages resulted in 130000 tokens.",
    type: 'invalid_request_error',
    code: 'context_length_exceeded',
  },
};

export interface OpenAICompatibleServer {
  /** Base URL for the `openai` client: `http://127.0.0.1:PORT/v1`. */
  baseURL: string;
  /** Requests seen, by the scenario word. */
  seen: string[];
  close(): Promise<void>;
}

function lastUserText(req: ChatRequest): string {
  const last = [...(req.messages ?? [])].reverse().find((m) => m.role === 'user');
  return typeof last?.content === 'string' ? last.content.trim() : '';
}

function readJson(req: IncomingMessage): Promise<ChatRequest> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      try {
        resolve(JSON.parse(Buffer.concat(chunks).toString('utf8')) as ChatRequest);
      } catch (e) {
        reject(e instanceof Error ? e : new Error(String(e)));
      }
    });
    req.on('error', reject);
  });
}

const usage = { prompt_tokens: PROMPT_TOKENS, completion_tokens: COMPLETION_TOKENS, total_tokens: PROMPT_TOKENS + COMPLETION_TOKENS };
const WORDS = ['Hello', ' from', ' the', ' test', ' server'];

function completion(model: string, finish: 'stop' | 'length') {
  return {
    id: 'chatcmpl-test-1',
    object: 'chat.completion',
    created: 1_700_000_000,
    model,
    system_fingerprint: 'fp_test',
    choices: [{ index: 0, message: { role: 'assistant', content: WORDS.join(''), refusal: null }, logprobs: null, finish_reason: finish }],
    usage,
  };
}

function stream(res: ServerResponse, model: string, includeUsage: boolean): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
  const chunk = (choices: unknown[], extra: Record<string, unknown> = {}) =>
    `data: ${JSON.stringify({ id: 'chatcmpl-test-2', object: 'chat.completion.chunk', created: 1_700_000_000, model, system_fingerprint: 'fp_test', choices, ...extra })}\n\n`;
  res.write(chunk([{ index: 0, delta: { role: 'assistant', content: '' }, logprobs: null, finish_reason: null }]));
  for (const w of WORDS) res.write(chunk([{ index: 0, delta: { content: w }, logprobs: null, finish_reason: null }]));
  res.write(chunk([{ index: 0, delta: {}, logprobs: null, finish_reason: 'stop' }]));
  if (includeUsage) res.write(chunk([], { usage }));
  res.end('data: [DONE]\n\n');
}

/** Starts the server on 127.0.0.1 and an ephemeral port. */
export async function startOpenAICompatibleServer(): Promise<OpenAICompatibleServer> {
  const seen: string[] = [];
  const slow = new Set<ServerResponse>();
  const server: Server = createServer((req, res) => {
    if (req.method !== 'POST' || !req.url?.endsWith('/chat/completions')) {
      res
        .writeHead(404, { 'content-type': 'application/json' })
        .end(JSON.stringify({ error: { message: `no route ${req.method} ${req.url}`, type: 'invalid_request_error', param: null, code: null } }));
      return;
    }
    readJson(req).then(
      (body) => {
        const word = lastUserText(body);
        seen.push(word);
        const model = `${body.model ?? 'unknown'}${RESPONSE_MODEL_SUFFIX}`;
        const err = ERRORS[word];
        if (err) {
          res
            .writeHead(err.status, { 'content-type': 'application/json', 'x-request-id': `req-${word}`, ...err.headers })
            .end(JSON.stringify({ error: { message: err.message, type: err.type, param: null, code: err.code } }));
        } else if (word === 'slow') {
          // Hold the request until the client gives up; a bound so a stuck test cannot hang forever.
          slow.add(res);
          const t = setTimeout(() => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(completion(model, 'stop'))), 10_000);
          res.on('close', () => {
            clearTimeout(t);
            slow.delete(res);
          });
        } else if (body.stream) stream(res, model, body.stream_options?.include_usage === true);
        else
          res
            .writeHead(200, { 'content-type': 'application/json', 'x-request-id': `req-${word}` })
            .end(JSON.stringify(completion(model, word === 'length' ? 'length' : 'stop')));
      },
      () =>
        res
          .writeHead(400, { 'content-type': 'application/json' })
          .end(JSON.stringify({ error: { message: 'body is not JSON', type: 'invalid_request_error', param: null, code: null } })),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    seen,
    close: () =>
      new Promise<void>((resolve) => {
        for (const r of slow) r.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
