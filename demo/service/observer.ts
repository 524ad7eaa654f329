/**
 * The seam between the demo service and whatever records its requests. The service calls
 * `onRequest` exactly once per request, after the response has been written, with every stage
 * measured by `performance.now()`. The lead wires this to the inferlens SDK; tests use
 * `createMemoryObserver`.
 */
import type { EventInput } from '../../src/schema/index.ts';

export interface RequestObserver {
  /** Must not throw; if it does, the service counts the failure and carries on. */
  onRequest(event: EventInput): void;
}

export const noopObserver: RequestObserver = { onRequest: () => undefined };

export interface MemoryObserver extends RequestObserver {
  readonly events: EventInput[];
}

/** Keeps the last `maxEvents` events in memory (a bound, so a long demo cannot grow it forever). */
export function createMemoryObserver(maxEvents = 100_000): MemoryObserver {
  const events: EventInput[] = [];
  return {
    events,
    onRequest(event) {
      events.push(event);
      if (events.length > maxEvents) events.splice(0, events.length - maxEvents);
    },
  };
}
