import { describe, expect, it } from 'vitest';
import { createBatcher } from './batcher.ts';
import type { Batch, Clock } from './batcher.ts';

/** A manual clock: time moves only when the test says so, and due timers fire then. */
function manualClock(): Clock & { advance(ms: number): void } {
  let now = 0;
  let timers: { at: number; fn: () => void; live: boolean }[] = [];
  return {
    nowMs: () => now,
    setTimer(fn, ms) {
      const t = { at: now + ms, fn, live: true };
      timers.push(t);
      return () => {
        t.live = false;
      };
    },
    advance(ms) {
      const end = now + ms;
      for (;;) {
        const due = timers.filter((t) => t.live && t.at <= end).sort((a, b) => a.at - b.at)[0];
        if (!due) break;
        now = due.at;
        due.live = false;
        due.fn();
      }
      timers = timers.filter((t) => t.live);
      now = end;
    },
  };
}

function setup(opts: { maxBatchSize: number; maxWaitMs: number; capacity: number; slots: number }) {
  const clock = manualClock();
  let free = opts.slots;
  const batches: { batch: Batch<string>; slot: number; atMs: number }[] = [];
  const batcher = createBatcher<string, number>({
    ...opts,
    clock,
    acquire: () => (free > 0 ? free-- : undefined),
    onBatch: (batch, slot) => batches.push({ batch, slot, atMs: clock.nowMs() }),
  });
  const release = (): void => {
    free++;
    batcher.pump();
  };
  return { clock, batcher, batches, release };
}

const items = (b: Batch<string>): string[] => b.entries.map((e) => e.item);

describe('batcher', () => {
  it('closes a batch as soon as it reaches max batch size', () => {
    const { batcher, batches } = setup({ maxBatchSize: 3, maxWaitMs: 50, capacity: 10, slots: 2 });
    for (const x of ['a', 'b', 'c', 'd']) batcher.offer(x);
    expect(batches).toHaveLength(1);
    expect(items(batches[0]!.batch)).toEqual(['a', 'b', 'c']);
    expect(batches[0]!.batch.closedBy).toBe('size');
    expect(batches[0]!.atMs).toBe(0);
    expect(batcher.depth).toBe(1); // 'd' is forming the next batch on the second slot
  });

  it('closes a partial batch after max wait', () => {
    const { clock, batcher, batches } = setup({ maxBatchSize: 8, maxWaitMs: 5, capacity: 10, slots: 1 });
    batcher.offer('a');
    clock.advance(2);
    batcher.offer('b');
    clock.advance(2.9);
    expect(batches).toHaveLength(0);
    clock.advance(0.1);
    expect(batches).toHaveLength(1);
    expect(batches[0]!.batch.closedBy).toBe('wait');
    expect(batches[0]!.atMs).toBe(5);
    // a joined at formation start (t 0): batch 5 − 0 = 5; b at t 2: batch 5 − 2 = 3; no queueing
    expect(batches[0]!.batch.entries.map((e) => [e.item, e.queueMs, e.batchMs])).toEqual([
      ['a', 0, 5],
      ['b', 0, 3],
    ]);
  });

  it('counts time waiting for a free executor as queue, not batch', () => {
    const { clock, batcher, batches, release } = setup({ maxBatchSize: 2, maxWaitMs: 5, capacity: 10, slots: 1 });
    batcher.offer('a');
    batcher.offer('b'); // closes by size at t 0 and takes the only slot
    clock.advance(4);
    batcher.offer('c'); // t 4: no slot, waits in the queue
    clock.advance(6);
    expect(batches).toHaveLength(1);
    release(); // t 10: the slot is back, c starts a batch
    clock.advance(5); // closes by wait at t 15
    expect(batches).toHaveLength(2);
    expect(batches[1]!.batch.entries.map((e) => [e.item, e.queueMs, e.batchMs])).toEqual([['c', 6, 5]]);
  });

  it('rejects offers when the queue is full, and accepts again once a batch drains it', () => {
    const { batcher, release, batches } = setup({ maxBatchSize: 2, maxWaitMs: 5, capacity: 3, slots: 1 });
    expect(batcher.offer('a')).toBe(true);
    expect(batcher.offer('b')).toBe(true); // batch [a, b] leaves the queue
    expect(batcher.offer('c')).toBe(true);
    expect(batcher.offer('d')).toBe(true);
    expect(batcher.offer('e')).toBe(true);
    expect(batcher.offer('f')).toBe(false); // c, d, e wait: the queue holds 3
    expect(batcher.depth).toBe(3);
    release(); // [c, d] closes by size at once
    expect(batches).toHaveLength(2);
    expect(batcher.offer('f')).toBe(true);
  });

  it('applies new settings to the next batch, and drain hands back what never ran', () => {
    const { clock, batcher, batches } = setup({ maxBatchSize: 4, maxWaitMs: 5, capacity: 10, slots: 5 });
    batcher.configure({ maxBatchSize: 1, maxWaitMs: 0 });
    batcher.offer('a');
    batcher.offer('b');
    expect(batches.map((b) => items(b.batch))).toEqual([['a'], ['b']]);
    batcher.configure({ maxBatchSize: 4, maxWaitMs: 100 });
    batcher.offer('c');
    expect(batcher.drain()).toEqual(['c']);
    clock.advance(200);
    expect(batches).toHaveLength(2);
    expect(batcher.offer('d')).toBe(false);
  });
});
