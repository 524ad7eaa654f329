import { describe, expect, it } from 'vitest';
import { createClient } from './client.ts';
import type { ClientOptions } from './options.ts';
import { resolveOptions } from './options.ts';
import { REAL_TIMERS } from './timers.ts';

function recorder() {
  const lines: string[] = [];
  return { lines, logger: { warn: (msg: string) => void lines.push(msg) } };
}

describe('resolveOptions', () => {
  it('uses the documented defaults', () => {
    const { logger, lines } = recorder();
    const o = resolveOptions({ endpoint: 'http://127.0.0.1:9/', defaults: { model: 'm' }, logger });
    expect(o).toMatchObject({
      endpoint: 'http://127.0.0.1:9',
      flushIntervalMs: 1000,
      maxBatchSize: 500,
      maxBufferSize: 10_000,
      maxRetries: 5,
      initialBackoffMs: 100,
      maxBackoffMs: 10_000,
      timeoutMs: 10_000,
      defaults: { model: 'm' },
    });
    expect(lines).toEqual([]);
  });

  it('turns each bad option into one warning and its default, never a throw', () => {
    const { logger, lines } = recorder();
    const o = resolveOptions({
      endpoint: 'ftp://x',
      flushIntervalMs: -5,
      maxBatchSize: 2.5,
      maxRetries: 'many',
      timeoutMs: Number.NaN,
      capture: 42,
      timers: { setTimeout: () => 0 },
      colour: 'blue',
      defaults: { model: 'm', node: '', tenant: 7, favourite: 'x', attributes: 'nope' },
      logger,
    });
    expect(o.endpoint).toBeUndefined();
    expect(o.flushIntervalMs).toBe(1000);
    expect(o.maxBatchSize).toBe(500);
    expect(o.maxRetries).toBe(5);
    expect(o.timeoutMs).toBe(10_000);
    expect(o.capture).toBeUndefined();
    expect(o.timers).toBe(REAL_TIMERS);
    expect(o.defaults).toEqual({ model: 'm' });
    const about = (word: string) => lines.filter((l) => l.includes(word)).length;
    for (const w of [
      'endpoint',
      'flushIntervalMs',
      'maxBatchSize',
      'maxRetries',
      'timeoutMs',
      'capture',
      'timers',
      'colour',
      'defaults.node',
      'defaults.tenant',
      'defaults.favourite',
      'defaults.attributes',
    ]) {
      expect(about(w), w).toBe(1);
    }
    expect(lines.every((l) => l.startsWith('inferlens sdk: '))).toBe(true);
  });

  it('warns about a missing model, a missing endpoint, and a back-off range upside down', () => {
    const { logger, lines } = recorder();
    const o = resolveOptions({ initialBackoffMs: 500, maxBackoffMs: 50, logger });
    expect(o.initialBackoffMs).toBe(50);
    expect(lines.some((l) => l.includes('defaults.model is not set'))).toBe(true);
    expect(lines.some((l) => l.includes('endpoint is required'))).toBe(true);
    expect(lines.some((l) => l.includes('maxBackoffMs'))).toBe(true);
  });

  it('survives a non-object, a bad logger and a throwing logger', () => {
    expect(() => resolveOptions(undefined)).not.toThrow();
    expect(() => resolveOptions('http://x')).not.toThrow();
    const throwing = {
      warn: () => {
        throw new Error('logger down');
      },
    };
    expect(() => resolveOptions({ endpoint: 'nope', logger: throwing })).not.toThrow();
    const warned: unknown[] = [];
    const original = console.warn;
    console.warn = (...args: unknown[]) => void warned.push(args);
    try {
      resolveOptions({ endpoint: 'http://x', defaults: { model: 'm' }, logger: { log: () => undefined } });
    } finally {
      console.warn = original;
    }
    expect(warned).toHaveLength(1);
  });
});

describe('a client without a usable endpoint', () => {
  it('times requests, sends nothing, counts the rows and never throws', async () => {
    const { logger } = recorder();
    const client = createClient({ endpoint: 'not a url', defaults: { model: 'm' }, logger });
    client.startRequest().stage('exec').end();
    client.record({ status: 'ok' });
    client.feedback({ request_id: 'r', kind: 'thumbs', value: true });
    await client.flush();
    const s = await client.shutdown({ timeoutMs: 100 });
    expect(s.dropped.no_endpoint).toBe(3);
    expect(s.sent).toBe(0);
  });

  it('accepts garbage as options without throwing', async () => {
    const { logger } = recorder();
    const client = createClient({ logger } as unknown as ClientOptions);
    expect(() => client.startRequest(null as never).end()).not.toThrow();
    await expect(client.shutdown({ timeoutMs: -1 })).resolves.toBeDefined();
  });
});
