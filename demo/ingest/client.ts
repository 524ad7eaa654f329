/**
 * Bulk writes to inferlens's public ingest API (`POST /v1/events | /v1/feedback | /v1/resources`) as
 * NDJSON, for the backfill and the simulated resource samples. 429 and 503 are retried after their
 * `Retry-After` (seconds, default 1), at most `maxRetries` times; 413 splits the batch in half.
 */

export interface IngestTarget {
  url: string;
  apiKey?: string;
}

export interface IngestReply {
  accepted: number;
  rejected: number;
  /** The first rejection's message, to say what was wrong. */
  firstProblem?: string;
}

type IngestPath = '/v1/events' | '/v1/feedback' | '/v1/resources';

export async function postNdjson(target: IngestTarget, path: IngestPath, rows: readonly unknown[], maxRetries = 30): Promise<IngestReply> {
  if (rows.length === 0) return { accepted: 0, rejected: 0 };
  const body = rows.map((r) => JSON.stringify(r)).join('\n');
  for (let attempt = 0; ; attempt++) {
    const res = await fetch(`${target.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-ndjson', ...(target.apiKey ? { authorization: `Bearer ${target.apiKey}` } : {}) },
      body,
    });
    if ((res.status === 429 || res.status === 503) && attempt < maxRetries) {
      await res.body?.cancel();
      const waitS = Number(res.headers.get('retry-after') ?? '1');
      await new Promise((r) => setTimeout(r, (Number.isFinite(waitS) && waitS > 0 ? Math.min(waitS, 60) : 1) * 1000));
      continue;
    }
    if (res.status === 413 && rows.length > 1) {
      await res.body?.cancel();
      const half = Math.ceil(rows.length / 2);
      const [a, b] = [await postNdjson(target, path, rows.slice(0, half), maxRetries), await postNdjson(target, path, rows.slice(half), maxRetries)];
      return {
        accepted: a.accepted + b.accepted,
        rejected: a.rejected + b.rejected,
        ...((a.firstProblem ?? b.firstProblem) !== undefined && { firstProblem: a.firstProblem ?? b.firstProblem }),
      };
    }
    const reply = (await res.json().catch(() => ({}))) as { accepted?: number; rejected?: { path?: string; message?: string }[]; error?: string };
    if (res.status !== 200 && res.status !== 400) throw new Error(`${path} answered ${res.status}: ${reply.error ?? 'no error message'}`);
    const first = reply.rejected?.[0];
    return {
      accepted: reply.accepted ?? 0,
      rejected: reply.rejected?.length ?? 0,
      ...(first && { firstProblem: `${first.path ?? ''}: ${first.message ?? ''}` }),
    };
  }
}

/** Whether the server holds any event in [fromMs, toMs), through `POST /v1/query`. */
export async function hasEvents(target: IngestTarget, fromMs: number, toMs: number): Promise<boolean> {
  const res = await fetch(`${target.url}/v1/query`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(target.apiKey ? { authorization: `Bearer ${target.apiKey}` } : {}) },
    body: JSON.stringify({ from: new Date(fromMs).toISOString(), to: new Date(toMs).toISOString(), measures: ['n'] }),
  });
  const reply = (await res.json()) as { status?: string; data?: { rows?: { n?: number }[] }; error?: string };
  if (reply.status !== 'success') throw new Error(`query answered ${res.status}: ${reply.error ?? 'no error message'}`);
  return (reply.data?.rows?.[0]?.n ?? 0) > 0;
}
