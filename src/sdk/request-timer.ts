/**
 * The per-request timer. A request passes through stages in order (ingress → queue → batch → exec
 * → post); `stage(name)` closes the named stage, so its duration is the time since the previous
 * mark (or since the start):
 *
 *   start ──ingress──▶ stage('ingress') ──queue──▶ stage('queue') ── … ──▶ stage('post') ─▶ end()
 *
 * Every method is O(1) and synchronous, and none throws. The hot path only stores numbers and
 * references: `end()` pushes the timer itself to the exporter's buffer, and the event object is
 * assembled by `toJSON()` when the exporter serialises the batch, off the request path. So the
 * objects passed to `startRequest()` and `set()` are kept by reference until then: do not mutate
 * them after the call. The request_id UUID is likewise generated on first use.
 *
 * Measured on Node 20 (see bench/sdk.ts): copying an object with spread and then adding fields
 * (`{ ...defaults, ...init }`) cost ~2 µs per request on V8 11, more than everything else here.
 */
import { randomUUID } from 'node:crypto';
import { ERROR_TYPES, STAGES } from '../schema/index.ts';
import type { Dimension, ErrorType, EventInput, StageName, Status } from '../schema/index.ts';
import { applyCapture } from './capture.ts';
import type { CapturePayload } from './capture.ts';
import type { CaptureHook, EventDefaults } from './options.ts';
import type { WarnOnce } from './warn-once.ts';

/** A latency stage by its short name (the vocabulary's `StageName`); its duration lands in `<name>_ms`. */
export type { StageName };
const STAGE_NAMES = STAGES.map((s) => s.slice(0, -3)).join(', ');

const ERROR_TYPE_SET: ReadonlySet<string> = new Set(ERROR_TYPES);

/** What is known when a request starts: its dimensions and identity. `request_id` defaults to a UUID. */
export type RequestStart = Partial<Pick<EventInput, Dimension | 'request_id' | 'trace_id' | 'attributes' | 'probe' | 'sample_weight'>>;

/** Any event field but `ts` (set at start) and the payload (use `capture()`). */
export type RequestFields = Partial<Omit<EventInput, 'ts' | 'input' | 'output' | 'risk_tags'>>;

/** How a request failed beyond its error type. `status` defaults to `error`. */
export interface FailOptions {
  status?: Status;
  http_status?: number;
}

/** Overrides at the end. `status` defaults to the one set by `fail()`, else `ok`. */
export interface EndOptions {
  status?: Status;
  http_status?: number;
}

/** Times one request and emits exactly one event at `end()`. All methods are no-ops after it. */
export interface RequestTimer {
  /** The event's `request_id` (given, or a random UUID made on first read): use it for feedback later. */
  readonly requestId: string;
  /** Closes stage `name`: adds the time since the previous mark to `<name>_ms` (repeats add up). */
  stage(name: StageName): this;
  /** Moves the mark without charging the time to any stage (a gap you do not want attributed). */
  mark(): this;
  /** Generative models: the first token is out now; sets `ttft_ms` (first call wins). */
  firstToken(): this;
  /** Sets result and context fields (`batch_size`, `label`, `confidence`, `output_tokens` …). */
  set(fields: RequestFields): this;
  /** Hands over the payload; the client's capture hook (if any) decides what the event carries. */
  capture(payload: CapturePayload): this;
  /** Marks the request failed: `error_type`, `status` (default `error`), optional `http_status`. */
  fail(errorType: ErrorType, options?: FailOptions): this;
  /** Computes `total_ms` (and `tpot_ms` when derivable) and emits the event; a second call does nothing. */
  end(options?: EndOptions): void;
}

/** What a timer needs from its client. */
export interface TimerHost {
  readonly now: () => number;
  readonly defaults: EventDefaults;
  readonly capture: CaptureHook | undefined;
  readonly warn: WarnOnce;
  /** Buffers a finished request; the exporter serialises it with JSON.stringify (→ `toJSON()`). */
  emit(row: { toJSON(): Partial<EventInput> }): void;
}

/** Rounds milliseconds to 3 decimals (microseconds): 12.34567 → 12.346. Negative (a clock that went back) → 0. */
export function roundMs(ms: number): number {
  return ms > 0 ? Math.round(ms * 1000) / 1000 : 0;
}

export function startTimer(host: TimerHost, init: RequestStart | undefined): RequestTimer {
  return new Timer(host, typeof init === 'object' && init !== null ? init : undefined);
}

/** Stage durations are kept as numbers on the timer; −1 means the stage was never closed. */
const UNSET = -1;

class Timer implements RequestTimer {
  private readonly host: TimerHost;
  private readonly init: RequestStart | undefined;
  private readonly ts: number;
  private id: string | undefined;
  private readonly startMs: number;
  private lastMs: number;
  private ingressMs = UNSET;
  private queueMs = UNSET;
  private batchMs = UNSET;
  private execMs = UNSET;
  private postMs = UNSET;
  private ttftMs = UNSET;
  private totalMs = UNSET;
  private fields: RequestFields | undefined = undefined;
  private payload: CapturePayload | undefined = undefined;
  private errorType: ErrorType | undefined = undefined;
  private status: Status | undefined = undefined;
  private httpStatus: number | undefined = undefined;
  /** Set at end() only when the capture hook needed the event then. */
  private built: Partial<EventInput> | undefined = undefined;
  private ended = false;

  constructor(host: TimerHost, init: RequestStart | undefined) {
    this.host = host;
    this.init = init;
    this.ts = Date.now();
    this.id = init?.request_id ?? undefined;
    this.startMs = this.lastMs = host.now();
  }

  get requestId(): string {
    return (this.id ??= randomUUID());
  }

  stage(name: StageName): this {
    if (this.ended) return this;
    const t = this.host.now();
    const d = t - this.lastMs;
    switch (name) {
      case 'ingress':
        this.ingressMs = (this.ingressMs === UNSET ? 0 : this.ingressMs) + d;
        break;
      case 'queue':
        this.queueMs = (this.queueMs === UNSET ? 0 : this.queueMs) + d;
        break;
      case 'batch':
        this.batchMs = (this.batchMs === UNSET ? 0 : this.batchMs) + d;
        break;
      case 'exec':
        this.execMs = (this.execMs === UNSET ? 0 : this.execMs) + d;
        break;
      case 'post':
        this.postMs = (this.postMs === UNSET ? 0 : this.postMs) + d;
        break;
      default: {
        // A stage added to the vocabulary without its timer here fails to compile.
        const unknown: never = name;
        this.host.warn(`stage:${String(unknown)}`, `stage(${JSON.stringify(unknown)}) is not a stage (${STAGE_NAMES}); ignored`);
        return this;
      }
    }
    this.lastMs = t;
    return this;
  }

  mark(): this {
    if (!this.ended) this.lastMs = this.host.now();
    return this;
  }

  firstToken(): this {
    if (!this.ended && this.ttftMs === UNSET) this.ttftMs = this.host.now() - this.startMs;
    return this;
  }

  set(fields: RequestFields): this {
    if (this.ended || typeof fields !== 'object' || fields === null) return this;
    // The first set() keeps the caller's object; a second one merges into a copy (never into theirs).
    this.fields = this.fields === undefined ? fields : Object.assign({}, this.fields, fields);
    return this;
  }

  capture(payload: CapturePayload): this {
    if (!this.ended && typeof payload === 'object' && payload !== null) this.payload = payload;
    return this;
  }

  fail(errorType: ErrorType, options?: FailOptions): this {
    if (this.ended) return this;
    if (ERROR_TYPE_SET.has(errorType)) this.errorType = errorType;
    else {
      this.host.warn(`error_type:${String(errorType)}`, `fail(${JSON.stringify(errorType)}): not an error type (${ERROR_TYPES.join(', ')}); using other`);
      this.errorType = 'other';
    }
    this.status = options?.status ?? 'error';
    if (options?.http_status !== undefined) this.httpStatus = options.http_status;
    return this;
  }

  end(options?: EndOptions): void {
    if (this.ended) return;
    this.ended = true;
    const host = this.host;
    try {
      this.totalMs = host.now() - this.startMs;
      if (options !== undefined) {
        if (options.status !== undefined) this.status = options.status;
        if (options.http_status !== undefined) this.httpStatus = options.http_status;
      }
      if (host.capture !== undefined) {
        // The hook sees the finished event, so it is assembled now rather than at send time.
        const ev = this.build();
        applyCapture(ev, this.payload, host.capture, host.warn);
        this.built = ev;
      }
      host.emit(this);
    } catch (e) {
      host.warn('timer:end', 'internal error while ending a request timer; its event is lost (please report it)', { error: String(e) });
    }
  }

  /** The event, for JSON.stringify in the exporter. */
  toJSON(): Partial<EventInput> {
    if (this.built !== undefined) return this.built;
    const ev = this.build();
    if (this.payload !== undefined) applyCapture(ev, this.payload, undefined, this.host.warn);
    return ev;
  }

  /** Precedence, lowest first: defaults, startRequest(), measured latencies, set(), fail()/end(). */
  private build(): Partial<EventInput> {
    const defaults = this.host.defaults;
    const init = this.init;
    const ev: Partial<EventInput> = Object.assign({}, defaults, init);
    if (init?.attributes != null && defaults.attributes !== undefined) ev.attributes = { ...defaults.attributes, ...init.attributes };
    ev.ts = this.ts;
    ev.request_id = this.requestId;
    if (this.ingressMs !== UNSET) ev.ingress_ms = roundMs(this.ingressMs);
    if (this.queueMs !== UNSET) ev.queue_ms = roundMs(this.queueMs);
    if (this.batchMs !== UNSET) ev.batch_ms = roundMs(this.batchMs);
    if (this.execMs !== UNSET) ev.exec_ms = roundMs(this.execMs);
    if (this.postMs !== UNSET) ev.post_ms = roundMs(this.postMs);
    if (this.ttftMs !== UNSET) ev.ttft_ms = roundMs(this.ttftMs);
    if (this.totalMs !== UNSET) ev.total_ms = roundMs(this.totalMs);
    if (this.fields !== undefined) Object.assign(ev, this.fields);
    if (this.errorType !== undefined) ev.error_type = this.errorType;
    ev.status = this.status ?? ev.status ?? 'ok';
    if (this.httpStatus !== undefined) ev.http_status = this.httpStatus;
    // Time per output token after the first: (total − ttft) / (tokens − 1).
    // 1 200 ms total, 200 ms TTFT, 101 tokens: 1 000 / 100 = 10 ms per token.
    const tokens = ev.output_tokens;
    if (ev.tpot_ms == null && ev.ttft_ms != null && ev.total_ms != null && tokens != null && tokens > 1) {
      ev.tpot_ms = roundMs((ev.total_ms - ev.ttft_ms) / (tokens - 1));
    }
    return ev;
  }
}
