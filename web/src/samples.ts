/**
 * The drawer on the right: the requests behind a chart point (`POST /v1/events/search` with the
 * slice's filters and the bucket's [start, start + step)) with the text of their captured samples
 * (`POST /v1/samples/search` on the same slice, joined by request_id: payloads are stored as
 * samples, never on events), or a whole request by id (`GET /v1/requests/:id`: its events and
 * samples). Captured input/output is shown as text via text nodes: a `<script>` in a sample is
 * displayed, never run.
 */
import { ApiError, request, searchEvents, searchSamples } from './api.ts';
import type { Filters, Sample } from './api.ts';
import { h, replace } from './dom.ts';
import { LATENCY_FIELDS } from '../../src/schema/vocabulary.ts';
import { fmtMs, fmtTime } from './format.ts';
import { scrollBox } from './views/common.ts';

export interface SampleQuery {
  title: string;
  fromMs: number;
  toMs: number;
  filters: Filters;
  min?: { column: string; value: number };
}

/** The captured text first (the drawer is narrow), then the slice and the timings. */
const TABLE_COLUMNS = [
  'ts',
  'request_id',
  'input',
  'output',
  'reasons',
  'status',
  'error_type',
  'model',
  'model_version',
  'replica',
  'tenant',
  'total_ms',
  'queue_ms',
  'exec_ms',
] as const;
const EVENT_LIMIT = 200;
const SAMPLE_LIMIT = 1000;
const MS: ReadonlySet<string> = new Set(LATENCY_FIELDS);
const TEXT_PREVIEW_CHARS = 80;

function cellText(col: string, v: unknown): string {
  if (v == null) return '';
  if (col === 'ts') {
    const t = typeof v === 'number' ? v : Date.parse(String(v));
    return Number.isFinite(t) ? fmtTime(t) : String(v);
  }
  if (MS.has(col) && typeof v === 'number') return fmtMs(v);
  if (typeof v === 'object') return JSON.stringify(v);
  const s = String(v);
  return s.length > TEXT_PREVIEW_CHARS ? s.slice(0, TEXT_PREVIEW_CHARS) + '…' : s;
}

export class Drawer {
  readonly el: HTMLElement;
  private readonly title: HTMLElement;
  private readonly body: HTMLElement;
  private ctl: AbortController | null = null;

  constructor(
    private readonly onOpenRequest: (id: string) => void,
    private readonly onClose: () => void,
  ) {
    this.title = h('h2');
    this.body = h('div', { class: 'drawer-body' });
    this.el = h(
      'aside',
      { class: 'drawer', id: 'drawer', data: { state: 'closed' } },
      h('header', null, this.title, h('button', { class: 'close', label: 'close', on: { click: () => this.close() } }, '×')),
      this.body,
    );
  }

  close(): void {
    this.ctl?.abort();
    this.el.dataset['state'] = 'closed';
    this.onClose();
  }

  private open(title: string, kind: string): AbortSignal {
    this.ctl?.abort();
    this.ctl = new AbortController();
    this.el.dataset['state'] = 'loading';
    this.el.dataset['kind'] = kind;
    this.title.textContent = title;
    replace(this.body, h('div', { class: 'placeholder' }, 'loading…'));
    return this.ctl.signal;
  }

  async showSamples(q: SampleQuery): Promise<void> {
    const signal = this.open(q.title, 'samples');
    const chips = Object.entries(q.filters).map(([k, v]) => h('span', { class: 'chip' }, `${k}=${Array.isArray(v) ? v.join('|') : v}`));
    const head = h(
      'p',
      { class: 'drawer-sub' },
      `${fmtTime(q.fromMs)} – ${fmtTime(q.toMs)}`,
      q.min ? ` · ${q.min.column} ≥ ${fmtMs(q.min.value)}` : '',
      ' ',
      ...chips,
    );
    try {
      const win = { from: new Date(q.fromMs).toISOString(), to: new Date(q.toMs).toISOString() };
      const [events, samples] = await Promise.all([
        searchEvents({ ...win, filters: q.filters, limit: EVENT_LIMIT, ...(q.min ? { min: q.min } : {}) }, signal),
        // Samples of the same slice (payloads are stored as samples, never on events).
        searchSamples({ ...win, filters: q.filters, limit: SAMPLE_LIMIT }, signal),
      ]);
      if (signal.aborted) return;
      this.el.dataset['state'] = 'ready';
      if (events.length === 0) {
        replace(this.body, head, h('div', { class: 'placeholder' }, 'No stored requests in this slice.'));
        return;
      }
      const byRequest = new Map<string, Sample>();
      for (const x of samples) if (x.request_id && !byRequest.has(x.request_id)) byRequest.set(x.request_id, x);
      const rows = events.map((e) => {
        const id = typeof e['request_id'] === 'string' ? e['request_id'] : null;
        const smp = id ? byRequest.get(id) : undefined;
        return smp ? { ...e, input: smp.input, output: smp.output, reasons: smp.reasons.join(', ') } : e;
      });
      const withText = rows.filter((r) => r['input'] != null || r['output'] != null).length;
      const count = `${events.length} request${events.length === 1 ? '' : 's'}${events.length === EVENT_LIMIT ? ` (first ${EVENT_LIMIT})` : ''}`;
      replace(
        this.body,
        head,
        h('p', { class: 'drawer-sub', data: { samples: String(withText) } }, `${count} · ${withText} with a captured sample`),
        this.sampleTable(rows),
      );
    } catch (e) {
      if (signal.aborted) return;
      this.el.dataset['state'] = 'error';
      replace(this.body, head, h('div', { class: 'error' }, (e as Error).message));
    }
  }

  private sampleTable(events: Record<string, unknown>[]): HTMLElement {
    const cols = TABLE_COLUMNS.filter((c) => events.some((e) => e[c] != null));
    const rows = events.map((e) => {
      const id = typeof e['request_id'] === 'string' ? e['request_id'] : null;
      return h(
        'tr',
        { data: { requestId: id ?? '' } },
        ...cols.map((c) => {
          const text = cellText(c, e[c]);
          if (c === 'request_id' && id)
            return h('td', null, h('a', { href: '#', class: 'reqlink', on: { click: (ev) => (ev.preventDefault(), this.onOpenRequest(id)) } }, text));
          return h('td', { class: c === 'input' || c === 'output' ? 'captured' : c, title: c === 'input' || c === 'output' ? String(e[c]) : '' }, text);
        }),
      );
    });
    return scrollBox(h('table', { class: 'samples' }, h('thead', null, h('tr', null, ...cols.map((c) => h('th', null, c)))), h('tbody', null, ...rows)));
  }

  async showRequest(id: string): Promise<void> {
    const signal = this.open(`Request ${id}`, 'request');
    try {
      const data = await request(id, signal);
      if (signal.aborted) return;
      const { events, samples } = data;
      this.el.dataset['state'] = 'ready';
      replace(
        this.body,
        ...events.map((e) => this.eventDetail(e, samples.length === 0)),
        samples.length
          ? h('div', { class: 'samples-block' }, ...samples.map((x) => sampleCard(x, null)))
          : h('p', { class: 'drawer-sub' }, 'No captured sample of this request (the capture policy keeps errors, low confidence, risky and a random share).'),
      );
    } catch (e) {
      if (signal.aborted) return;
      this.el.dataset['state'] = 'error';
      replace(this.body, h('div', { class: e instanceof ApiError && e.status === 404 ? 'placeholder' : 'error' }, (e as Error).message));
    }
  }

  /** `withText`: show text still stored on the event (data written before samples existed). */
  private eventDetail(e: Record<string, unknown>, withText: boolean): HTMLElement {
    const skip = new Set(['input', 'output']);
    const rows = Object.entries(e)
      .filter(([k, v]) => v != null && !skip.has(k))
      .map(([k, v]) =>
        h('tr', null, h('th', null, k), h('td', null, k === 'ts' || MS.has(k) ? cellText(k, v) : typeof v === 'object' ? JSON.stringify(v) : String(v))),
      );
    const text = (k: 'input' | 'output') =>
      withText && typeof e[k] === 'string'
        ? h('div', { class: 'captured-block' }, h('h4', null, k), h('pre', { data: { captured: k } }, e[k] as string))
        : null;
    return h('div', { class: 'event-detail' }, h('table', { class: 'kv' }, h('tbody', null, ...rows)), text('input'), text('output'));
  }
}

/**
 * One captured sample: why it was kept, its weight, and the input/output as text in <pre>
 * (`data-captured`). `open` links the request id when given.
 */
export function sampleCard(x: Sample, open: ((id: string) => void) | null): HTMLElement {
  const t = Date.parse(x.ts);
  const id = x.request_id;
  return h(
    'div',
    { class: 'sample', data: { requestId: id ?? '' } },
    h(
      'div',
      { class: 'sample-head' },
      id && open ? h('a', { href: '#', class: 'reqlink', on: { click: (ev) => (ev.preventDefault(), open(id)) } }, id) : h('strong', null, id ?? 'sample'),
      ` ${Number.isFinite(t) ? fmtTime(t) : x.ts}`,
      x.model_version ? ` · ${x.model_version}` : '',
      x.status ? ` · ${x.status}${x.error_type ? ` (${x.error_type})` : ''}` : '',
      x.label != null ? ` · label ${x.label}` : '',
      x.confidence != null ? ` · confidence ${x.confidence.toFixed(3)}` : '',
      x.sample_weight != null ? ` · weight ${x.sample_weight}` : '',
      ' ',
      ...x.reasons.map((r) => h('span', { class: 'chip reason' }, r)),
      ...x.risk_tags.map((r) => h('span', { class: 'chip risk' }, `tag:${r}`)),
    ),
    x.input != null ? h('div', { class: 'captured-block' }, h('h4', null, 'input'), h('pre', { data: { captured: 'input' } }, x.input)) : null,
    x.output != null ? h('div', { class: 'captured-block' }, h('h4', null, 'output'), h('pre', { data: { captured: 'output' } }, x.output)) : null,
  );
}
