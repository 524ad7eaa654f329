/**
 * A ready-made event passed to `record()`, kept by reference and merged with the client's defaults
 * only when the exporter serialises it (JSON.stringify → `toJSON()`), so `record()` stays an O(1)
 * push on the caller's path.
 */
import type { EventInput } from '../schema/index.ts';
import { clampPayload } from './capture.ts';
import type { EventDefaults } from './options.ts';

export class RecordedEvent {
  private readonly defaults: EventDefaults;
  private readonly event: Readonly<Partial<EventInput>>;
  /** When `record()` was called: the event's `ts` if it has none. */
  private readonly recordedAtMs: number;

  constructor(defaults: EventDefaults, event: Readonly<Partial<EventInput>>) {
    this.defaults = defaults;
    this.event = event;
    this.recordedAtMs = Date.now();
  }

  /** Defaults, then the event; `ts` defaults to the time of `record()`; payload text truncated. */
  toJSON(): Partial<EventInput> {
    const ev: Partial<EventInput> = Object.assign({}, this.defaults, this.event);
    if (this.event.attributes != null && this.defaults.attributes !== undefined) ev.attributes = { ...this.defaults.attributes, ...this.event.attributes };
    ev.ts ??= this.recordedAtMs;
    clampPayload(ev);
    return ev;
  }
}
