/**
 * Runs the write side's whole-document decoding on a worker thread (decode-worker.ts): OTLP
 * export requests (decoded and mapped) and YAML uploads (parsed within bounds), so that a large or
 * hostile body never holds the server's event loop. One worker, started on the first request,
 * takes jobs one at a time; `MAX_PENDING` requests may wait for it (their bodies are held in
 * memory), more are refused with 429. The worker's heap is capped: a body that would need more to
 * decode kills only the worker (the request gets 413, the next one a new worker).
 *
 * The worker is `unref`'d: an idle one never keeps the process alive.
 */
import { Worker } from 'node:worker_threads';
import { InferlensError } from '../../schema/index.ts';
import type { ErrorCode } from '../../schema/index.ts';
import type { MappedRequest, OtlpSignal } from '../otlp/map-request.ts';
import type { YamlLimits } from './yaml.ts';
import { workerEntry } from './entry.ts';

export type DecodeJob =
  { id: number; kind: 'otlp'; signal: OtlpSignal; body: Uint8Array; contentType: string } | { id: number; kind: 'yaml'; text: string; limits: YamlLimits };

export type DecodeReply = { id: number; mapped: MappedRequest } | { id: number; json: string } | { id: number; error: { code: ErrorCode; message: string } };

type Result = MappedRequest | { json: string };

/** Requests waiting for (or on) the decoder; more are refused with 429. */
export const MAX_PENDING = 8;
/** The worker's old-generation heap cap, MiB: 40,000 spans (16 MiB of OTLP/JSON) decode in ~300 MiB. */
const MAX_WORKER_HEAP_MB = 1024;

/** The worker's entry and how to start it: compiled code starts the compiled entry directly. */
const WORKER = workerEntry(import.meta.url, 'decode-worker');

interface Pending {
  resolve: (m: Result) => void;
  reject: (e: unknown) => void;
}

let worker: Worker | undefined;
const pending = new Map<number, Pending>();
let nextId = 1;

function start(): Worker {
  const w = new Worker(WORKER.entry, { ...WORKER.options, resourceLimits: { maxOldGenerationSizeMb: MAX_WORKER_HEAP_MB } });
  w.unref();
  w.on('message', (msg: DecodeReply) => {
    const p = pending.get(msg.id);
    if (!p) return;
    pending.delete(msg.id);
    if ('mapped' in msg) p.resolve(msg.mapped);
    else if ('json' in msg) p.resolve({ json: msg.json });
    else p.reject(new InferlensError(msg.error.code, msg.error.message));
  });
  const fail = (e: unknown) => {
    if (worker !== w) return;
    worker = undefined;
    const oom = (e as { code?: string } | undefined)?.code === 'ERR_WORKER_OUT_OF_MEMORY';
    const err = oom
      ? new InferlensError('payload_too_large', 'the body needs too much memory to decode: send it in smaller parts', { cause: e })
      : new InferlensError('unavailable', 'the body decoder stopped; retry', { cause: e, retryAfterS: 1 });
    for (const p of pending.values()) p.reject(err);
    pending.clear();
  };
  w.on('error', fail);
  w.on('exit', (code) => fail(new Error(`OTLP decode worker exited with code ${code}`)));
  return w;
}

function submit(job: DecodeJob): Promise<Result> {
  if (pending.size >= MAX_PENDING) {
    return Promise.reject(
      new InferlensError('resource_exhausted', `${pending.size} requests are waiting to be decoded; retry after the delay`, { retryAfterS: 1 }),
    );
  }
  worker ??= start();
  const w = worker;
  return new Promise<Result>((resolve, reject) => {
    pending.set(job.id, { resolve, reject });
    // Ref'd while a job is out, so a process that waits only for this answer does not exit early.
    w.ref();
    w.postMessage(job);
  }).finally(() => {
    if (pending.size === 0) worker?.unref();
  });
}

/** Decodes and maps one OTLP request body off the event loop. Throws the decoder's coded errors. */
export async function decodeOtlpOffThread(signal: OtlpSignal, body: Uint8Array, contentType: string): Promise<MappedRequest> {
  return (await submit({ id: nextId++, kind: 'otlp', signal, body, contentType })) as MappedRequest;
}

/**
 * Parses one YAML document off the event loop within `limits` (yaml.ts), into plain values
 * (returned as JSON text: parse it with JSON.parse). Throws invalid_argument naming the problem.
 */
export async function parseYamlOffThread(text: string, limits: YamlLimits): Promise<string> {
  return ((await submit({ id: nextId++, kind: 'yaml', text, limits })) as { json: string }).json;
}
