/**
 * Payload capture: turns what the service hands over (strings or JSON-able values) into the
 * event's `input` / `output` / `risk_tags`, within the schema's limits, so a large prompt never
 * gets a whole event rejected.
 */
import type { EventInput } from '../schema/index.ts';
import type { CaptureDecision, CaptureHook } from './options.ts';
import type { WarnOnce } from './warn-once.ts';

/** The schema's limit for `text` fields (MAX_TEXT_CHARS in src/schema/event.ts): 64 Ki UTF-16 units. */
export const MAX_TEXT_CHARS = 65_536;
const MAX_TAGS = 16;
const MAX_TAG_CHARS = 64;

/** What `t.capture()` takes: any of the three; non-strings are JSON-serialised. */
export interface CapturePayload {
  input?: unknown;
  output?: unknown;
  risk_tags?: readonly string[];
}

/** Cuts a string to `maxChars` without splitting a surrogate pair. */
export function truncateText(s: string, maxChars: number = MAX_TEXT_CHARS): string {
  if (s.length <= maxChars) return s;
  let cut = maxChars;
  const last = s.charCodeAt(cut - 1);
  if (last >= 0xd800 && last <= 0xdbff) cut--;
  return s.slice(0, cut);
}

/** A captured value as text: strings as they are, anything else as JSON; undefined when absent or unserialisable. */
export function toText(v: unknown): string | undefined {
  if (v == null) return undefined;
  if (typeof v === 'string') return truncateText(v);
  try {
    const s = JSON.stringify(v);
    return s === undefined ? undefined : truncateText(s);
  } catch {
    return undefined;
  }
}

/** Risk tags within the schema's bounds: ≤ 16 non-empty strings of ≤ 64 characters. */
export function toTags(v: unknown): string[] | undefined {
  if (!Array.isArray(v)) return undefined;
  const out: string[] = [];
  for (const t of v) {
    if (typeof t !== 'string' || t === '') continue;
    out.push(t.length > MAX_TAG_CHARS ? truncateText(t, MAX_TAG_CHARS) : t);
    if (out.length === MAX_TAGS) break;
  }
  return out;
}

function attach(ev: Partial<EventInput>, p: CapturePayload): void {
  const input = toText(p.input);
  const output = toText(p.output);
  const tags = toTags(p.risk_tags);
  if (input !== undefined) ev.input = input;
  if (output !== undefined) ev.output = output;
  if (tags !== undefined && tags.length > 0) ev.risk_tags = tags;
}

/**
 * Applies the capture policy to a finished event: without a hook, the payload given is attached;
 * with one, the hook decides (true: as given, false: nothing, object: that instead). A throwing
 * hook attaches nothing.
 */
export function applyCapture(ev: Partial<EventInput>, payload: CapturePayload | undefined, hook: CaptureHook | undefined, warn: WarnOnce): void {
  if (hook === undefined) {
    if (payload !== undefined) attach(ev, payload);
    return;
  }
  let decision: CaptureDecision;
  try {
    decision = hook(payload?.input, payload?.output, ev as EventInput);
  } catch (e) {
    warn('capture:threw', 'the capture hook threw; the payload of that request is not captured', { error: String(e) });
    return;
  }
  if (decision === true) {
    if (payload !== undefined) attach(ev, payload);
  } else if (typeof decision === 'object' && decision !== null) {
    attach(ev, decision);
  }
}

/** Truncates `input` / `output` of a ready-made event in place when they are over the limit. */
export function clampPayload(ev: Partial<EventInput>): void {
  if (typeof ev.input === 'string' && ev.input.length > MAX_TEXT_CHARS) ev.input = truncateText(ev.input);
  if (typeof ev.output === 'string' && ev.output.length > MAX_TEXT_CHARS) ev.output = truncateText(ev.output);
}
