/**
 * A dashboard panel and its states. A panel is never an empty chart: it is loading, showing data,
 * saying which fields would unlock it (`needs`), saying which API it waits for (`missing-api`),
 * saying there were no requests (`empty`), or showing the error. `data-state` carries the state
 * for tests and for CSS.
 */
import { h, replace } from './dom.ts';
import type { Child } from './dom.ts';

export type PanelState = 'loading' | 'ready' | 'needs' | 'missing-api' | 'empty' | 'error';

export class Panel {
  readonly el: HTMLElement;
  readonly body: HTMLElement;
  private readonly meta: HTMLElement;
  private readonly badges: HTMLElement;

  constructor(
    readonly id: string,
    title: string,
    subtitle = '',
    wide = false,
  ) {
    this.meta = h('span', { class: 'panel-meta' });
    this.badges = h('span', { class: 'panel-badges' });
    this.body = h('div', { class: 'panel-body' });
    this.el = h(
      'section',
      { class: wide ? 'panel wide' : 'panel', data: { panel: id, state: 'loading' } },
      h('header', null, h('h3', null, title), this.badges, this.meta),
      subtitle ? h('p', { class: 'panel-sub' }, subtitle) : null,
      this.body,
    );
    this.loading();
  }

  get state(): PanelState {
    return (this.el.dataset['state'] ?? 'loading') as PanelState;
  }

  private set(state: PanelState, ...children: Child[]): void {
    this.el.dataset['state'] = state;
    replace(this.body, ...children);
  }

  loading(): void {
    // Keep the current content while refreshing: only a first load shows the placeholder.
    if (this.state === 'ready') return;
    this.set('loading', h('div', { class: 'placeholder' }, 'loading…'));
  }

  /** Marks the panel ready; the caller fills `body` (a chart keeps its element between refreshes). */
  ready(...children: Child[]): void {
    if (children.length) this.set('ready', ...children);
    else this.el.dataset['state'] = 'ready';
  }

  /** Staged adoption: these fields, sent with the events, would unlock this panel. */
  needs(fields: string[], why: string): void {
    this.set(
      'needs',
      h('div', { class: 'needs' }, h('strong', null, 'Needs ', ...fields.flatMap((f, i) => [i ? ', ' : '', h('code', null, f)])), h('p', null, why)),
    );
  }

  /** The endpoint this panel reads is not on this server yet. */
  missingApi(endpoint: string, what: string): void {
    this.set('missing-api', h('div', { class: 'needs' }, h('strong', null, 'This needs ', h('code', null, endpoint)), h('p', null, what)));
  }

  empty(message: string): void {
    this.set('empty', h('div', { class: 'placeholder' }, message));
  }

  error(message: string): void {
    this.set('error', h('div', { class: 'error' }, message));
  }

  setMeta(text: string): void {
    this.meta.textContent = text;
  }

  setBadges(...badges: string[]): void {
    replace(this.badges, ...badges.map((b) => h('span', { class: `badge badge-${b.replace(/\W+/g, '-')}` }, b)));
  }
}
