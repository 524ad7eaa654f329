import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { createDuckDBStore } from '../store/index.ts';
import { createRollupMaintainer } from './rollup.ts';

const T0 = Date.parse('2026-11-30T10:00:00Z');
const MIN = 60_000;

describe('rollup maintainer', () => {
  it('rolls up the minutes that closed lagMs ago, one run at a time', async () => {
    const store = await createDuckDBStore({ path: ':memory:', threads: 1 });
    await store.migrate();
    await store.appendEvents(Array.from({ length: 5 }, (_, i) => JSON.stringify({ ts: T0 + i * MIN + 1000, model: 'm', total_ms: 10 + i, status: 'ok' })));
    let now = T0 + 3 * MIN + 30_000;
    const m = createRollupMaintainer({ store, logger: pino({ level: 'silent' }), intervalMs: 15_000, lagMs: MIN, now: () => now });
    // now − lag = 10:02:30 → minutes 10:00 and 10:01 are rolled up.
    const [a, b] = await Promise.all([m.runOnce(), m.runOnce()]);
    expect(a).toEqual({ watermarkMs: T0 + 2 * MIN, minutes: 2 });
    expect(b).toBe(a);
    now += 2 * MIN;
    expect(await m.runOnce()).toEqual({ watermarkMs: T0 + 4 * MIN, minutes: 2 });
    // Nothing new closed, or the clock went back: the watermark stays.
    expect(await m.runOnce()).toEqual({ watermarkMs: T0 + 4 * MIN, minutes: 0 });
    now -= 10 * MIN;
    expect(await m.runOnce()).toEqual({ watermarkMs: T0 + 4 * MIN, minutes: 0 });
    await m.stop();
    await store.close();
  });
});
