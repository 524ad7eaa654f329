import { describe, expect, it } from 'vitest';
import { RingBuffer } from './ring-buffer.ts';

describe('RingBuffer', () => {
  it('is FIFO across wrap-around', () => {
    const b = new RingBuffer<number>(3);
    b.push(1);
    b.push(2);
    expect(b.take(1)).toEqual([1]);
    b.push(3);
    b.push(4);
    expect(b.size).toBe(3);
    expect(b.take(10)).toEqual([2, 3, 4]);
    expect(b.size).toBe(0);
  });

  it('evicts the oldest row when full and says so', () => {
    const b = new RingBuffer<number>(3);
    const evicted = [1, 2, 3, 4, 5].map((n) => b.push(n));
    expect(evicted).toEqual([false, false, false, true, true]);
    expect(b.take(3)).toEqual([3, 4, 5]);
  });

  it('clear returns the count and empties', () => {
    const b = new RingBuffer<number>(2);
    b.push(1);
    b.push(2);
    b.push(3);
    expect(b.clear()).toBe(2);
    expect(b.size).toBe(0);
    b.push(9);
    expect(b.take(5)).toEqual([9]);
  });
});
