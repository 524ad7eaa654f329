/**
 * A bounded FIFO of rows waiting to be sent. When full, a push evicts the OLDEST row: during an
 * outage the rows that survive are the most recent ones, which is what a dashboard shows when the
 * server comes back. Push, take and evict are O(1) per row; memory is fixed at `capacity` slots.
 */
export class RingBuffer<T> {
  private readonly slots: (T | undefined)[];
  private head = 0;
  private count = 0;

  constructor(readonly capacity: number) {
    this.slots = new Array<T | undefined>(capacity);
  }

  get size(): number {
    return this.count;
  }

  /** Appends a row; returns true when the oldest row was evicted to make room. */
  push(row: T): boolean {
    const cap = this.capacity;
    if (this.count === cap) {
      this.slots[this.head] = row;
      this.head = this.head + 1 === cap ? 0 : this.head + 1;
      return true;
    }
    const tail = this.head + this.count;
    this.slots[tail >= cap ? tail - cap : tail] = row;
    this.count++;
    return false;
  }

  /** Removes and returns up to `n` rows, oldest first. */
  take(n: number): T[] {
    const k = Math.min(n, this.count);
    const out = new Array<T>(k);
    for (let i = 0; i < k; i++) {
      out[i] = this.slots[this.head] as T;
      this.slots[this.head] = undefined;
      this.head = this.head + 1 === this.capacity ? 0 : this.head + 1;
    }
    this.count -= k;
    return out;
  }

  /** Empties the buffer; returns how many rows it held. */
  clear(): number {
    const n = this.count;
    this.slots.fill(undefined);
    this.head = 0;
    this.count = 0;
    return n;
  }
}
