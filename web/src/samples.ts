/**
 * The drawer on the right: the samples behind a chart point (`POST /v1/events/search` with the
 * slice's filters and the bucket's [start, start + step)), or a whole request by id
 * (`GET /v1/requests/:id`). Captured input/output is shown as text in <pre> via text nodes: a
 * `<script>` in a sample is displayed, never run.
 */
import { ApiError, field, isRecord, records, request, searchEvents } from './api.ts';
import type { Filters } from './api.ts';
import { h, replace } from './dom.ts';
import { fmtMs, fmtTime } from './format.ts';

export interface SampleQuery {
  title: string;
  fromMs: number;
  toMs: number;
  filters: Filters;
  min?: { column: string; value: number };
}

const TABLE_COLUMNS = ['ts', 'request_id', 'model', 'model_version', 'replica', 'tenant', 'status', 'error_type', 'total_ms', 'queue_ms', 'exec_ms', 'input', 'output'] as const;
const MS = new Set(['total_ms', 'queue_ms', 'exec_ms', 'ingress_ms', 'batch_ms', 'post_ms', 'ttft_ms', 'tpot_ms']);
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
      const events = await searchEvents(
        { from: new Date(q.fromMs).toISOString(), to: new Date(q.toMs).toISOString(), filters: q.filters, limit: 200, ...(q.min ? { min: q.min } : {}) },
        signal,
      );
      if (signal.aborted) return;
      this.el.dataset['state'] = 'ready';
      if (events.length === 0) {
        replace(this.body, head, h('div', { class: 'placeholder' }, 'No stored samples in this slice.'));
        return;
      }
      replace(this.body, head, h('p', { class: 'drawer-sub' }, `${events.length} sample${events.length === 1 ? '' : 's'}${events.length === 200 ? ' (first 200)' : ''}`), this.sampleTable(events));
    } catch (e) {
      if (signal.aborted) return;
      this.el.dataset['state'] = 'error';
      if (e instanceof ApiError && e.missingEndpoint) {
        replace(this.body, head, h('div', { class: 'needs' }, h('strong', null, 'This needs ', h('code', null, 'POST /v1/events/search')), h('p', null, 'The server does not list samples yet.')));
      } else replace(this.body, head, h('div', { class: 'error' }, (e as Error).message));
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
          if (c === 'request_id' && id) return h('td', null, h('a', { href: '#', class: 'reqlink', on: { click: (ev) => (ev.preventDefault(), this.onOpenRequest(id)) } }, text));
          return h('td', { class: c === 'input' || c === 'output' ? 'captured' : c, title: c === 'input' || c === 'output' ? String(e[c]) : '' }, text);
        }),
      );
    });
    return h('div', { class: 'table-wrap' }, h('table', { class: 'samples' }, h('thead', null, h('tr', null, ...cols.map((c) => h('th', null, c)))), h('tbody', null, ...rows)));
  }

  async showRequest(id: string): Promise<void> {
    const signal = this.open(`Request ${id}`, 'request');
    try {
      const data = await request(id, signal);
      if (signal.aborted) return;
      const events = records(field(data, 'events'));
      const feedback = records(field(data, 'feedback'));
      this.el.dataset['state'] = 'ready';
      replace(this.body, ...events.map((e) => this.eventDetail(e)), feedback.length ? this.feedbackList(feedback) : h('p', { class: 'drawer-sub' }, 'No feedback joined to this request.'));
    } catch (e) {
      if (signal.aborted) return;
      this.el.dataset['state'] = 'error';
      replace(this.body, h('div', { class: e instanceof ApiError && e.status === 404 ? 'placeholder' : 'error' }, (e as Error).message));
    }
  }

  private eventDetail(e: Record<string, unknown>): HTMLElement {
    const skip = new Set(['input', 'output']);
    const rows = Object.entries(e)
      .filter(([k, v]) => v != null && !skip.has(k))
      .map(([k, v]) => h('tr', null, h('th', null, k), h('td', null, k === 'ts' || MS.has(k) ? cellText(k, v) : typeof v === 'object' ? JSON.stringify(v) : String(v))));
    const text = (k: 'input' | 'output') =>
      typeof e[k] === 'string' ? h('div', { class: 'captured-block' }, h('h4', null, k), h('pre', { data: { captured: k } }, e[k] as string)) : null;
    return h('div', { class: 'event-detail' }, h('table', { class: 'kv' }, h('tbody', null, ...rows)), text('input'), text('output'));
  }

  private feedbackList(items: Record<string, unknown>[]): HTMLElement {
    return h(
      'div',
      { class: 'feedback' },
      h('h4', null, 'Feedback'),
      h('ul', null, ...items.map((f) => h('li', null, Object.entries(f).filter(([, v]) => v != null && !isRecord(v)).map(([k, v]) => `${k}: ${String(v)}`).join(' · ')))),
    );
  }
}
