/**
 * The decode worker's entry: runs the jobs offload.ts sends (OTLP bodies decoded and mapped, YAML
 * uploads parsed within bounds), one at a time, and posts each result or coded error back.
 */
import { parentPort } from 'node:worker_threads';
import { InferlensError } from '../../schema/index.ts';
import { mapRequest } from '../otlp/map-request.ts';
import { parseYamlBounded } from './yaml.ts';
import type { DecodeJob, DecodeReply } from './offload.ts';

function run(job: DecodeJob): DecodeReply {
  if (job.kind === 'otlp') return { id: job.id, mapped: mapRequest(job.signal, job.body, job.contentType) };
  // Plain values cross back as JSON text: cheaper to copy than an object graph.
  return { id: job.id, json: JSON.stringify(parseYamlBounded(job.text, job.limits)) ?? 'null' };
}

const port = parentPort!;
port.on('message', (job: DecodeJob) => {
  let reply: DecodeReply;
  try {
    reply = run(job);
  } catch (e) {
    const coded = e instanceof InferlensError ? e : new InferlensError('invalid_argument', `the body could not be decoded: ${(e as Error).message}`);
    reply = { id: job.id, error: { code: coded.code, message: coded.message } };
  }
  port.postMessage(reply);
});
