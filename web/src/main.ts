/**
 * The shell: role-view tabs, the global filter bar (kept in the URL), the request search, the
 * samples drawer and auto-refresh. Views get a ViewContext and fill their panels; the shell aborts
 * a view's requests when the filters, window or view change.
 */
import './style.css';
import { ApiError, labels, whenUnauthenticated } from './api.ts';
import { charts } from './charts/registry.ts';
import { form, h, replace } from './dom.ts';
import { fmtTime } from './format.ts';
import { Drawer } from './samples.ts';
import { describePrincipal, loadSession, signIn, signOut } from './session.ts';
import type { SessionInfo } from './session.ts';
import {
  FILTER_DIMS,
  FILTER_TITLES,
  REFRESH_CHOICES_S,
  RELATIVE_WINDOWS,
  VIEWS,
  VIEW_TITLES,
  apiFilters,
  parseState,
  resolveWindow,
  stateUrl,
} from './state.ts';
import type { FilterDim, State, View } from './state.ts';
import type { ViewContext, ViewFactory, ViewHandle } from './view.ts';
import { alertsView } from './views/alerts.ts';
import { businessView } from './views/business.ts';
import { costView } from './views/cost.ts';
import { qualityView } from './views/quality.ts';
import { releaseView } from './views/release.ts';
import { reviewView } from './views/review.ts';
import { runtimeView } from './views/runtime.ts';

const FACTORIES: Record<View, ViewFactory> = {
  runtime: runtimeView,
  quality: qualityView,
  release: releaseView,
  cost: costView,
  business: businessView,
  alerts: alertsView,
  review: reviewView,
};

let state: State = parseState(location);
let current: { view: View; handle: ViewHandle } | null = null;
let ctl: AbortController | null = null;
let timer: ReturnType<typeof setInterval> | null = null;
let renders = 0;
let labelsKey = '';

const content = h('main', { id: 'content' });
const drawer = new Drawer(
  (id) => go({ request: id }),
  () => {
    if (state.request) go({ request: null });
  },
);

const tabs = h(
  'nav',
  { class: 'tabs' },
  ...VIEWS.map((v) => h('a', { href: `/${v}`, data: { view: v }, on: { click: (e) => (e.preventDefault(), go({ view: v })) } }, VIEW_TITLES[v])),
);

const filterSelects = Object.fromEntries(
  FILTER_DIMS.map((d) => [
    d,
    h(
      'select',
      {
        id: `filter-${d}`,
        label: FILTER_TITLES[d],
        on: { change: (e) => go({ filters: { ...state.filters, [d]: (e.target as HTMLSelectElement).value || undefined } }) },
      },
      h('option', { value: '' }, `all`),
    ),
  ]),
) as Record<FilterDim, HTMLSelectElement>;

const windowSelect = h(
  'select',
  { id: 'window', label: 'time window', on: { change: (e) => onWindow((e.target as HTMLSelectElement).value) } },
  ...RELATIVE_WINDOWS.map((w) => h('option', { value: w }, `last ${w.slice(4)}`)),
  h('option', { value: 'absolute' }, 'absolute…'),
);
const fromInput = h('input', { id: 'from', type: 'datetime-local', label: 'from' });
const toInput = h('input', { id: 'to', type: 'datetime-local', label: 'to' });
const absolute = h('span', { class: 'absolute' }, fromInput, ' – ', toInput, h('button', { on: { click: () => applyAbsolute() } }, 'apply'));
const refreshSelect = h(
  'select',
  { id: 'refresh', label: 'auto-refresh', on: { change: (e) => go({ refreshS: Number((e.target as HTMLSelectElement).value) }) } },
  ...REFRESH_CHOICES_S.map((s) => h('option', { value: String(s) }, s === 0 ? 'refresh off' : `every ${s < 60 ? `${s}s` : `${s / 60}m`}`)),
);
const updated = h('span', { class: 'updated', id: 'updated' });
const requestInput = h('input', { id: 'request-search', type: 'search', placeholder: 'request id', label: 'request id' });
const requestForm = form(
  'search',
  () => {
    const id = requestInput.value.trim();
    if (id) go({ request: id });
  },
  requestInput,
  h('button', { type: 'submit' }, 'open'),
);

const who = h('span', { class: 'who', id: 'principal' });
const signOutButton = h(
  'button',
  {
    id: 'sign-out',
    class: 'link',
    on: {
      click: () =>
        void signOut()
          .catch(() => undefined)
          .then(() => location.reload()),
    },
  },
  'sign out',
);
const account = h('span', { class: 'account' }, who, signOutButton);

replace(
  document.getElementById('app')!,
  h('header', { class: 'top' }, h('a', { class: 'brand', href: '/runtime' }, 'inferlens'), tabs, requestForm, account),
  h(
    'div',
    { class: 'filters', id: 'filters' },
    ...FILTER_DIMS.map((d) => h('label', null, h('span', null, FILTER_TITLES[d]), filterSelects[d])),
    h('label', null, h('span', null, 'Window'), windowSelect),
    absolute,
    refreshSelect,
    h('button', { id: 'refresh-now', on: { click: () => void render() } }, '↻'),
    updated,
  ),
  content,
  drawer.el,
);

function toLocalInput(ms: number): string {
  const d = new Date(ms - new Date(ms).getTimezoneOffset() * 60_000);
  return d.toISOString().slice(0, 16);
}

function onWindow(value: string): void {
  if (value === 'absolute') {
    const w = resolveWindow(state, Date.now());
    fromInput.value = toLocalInput(w.fromMs);
    toInput.value = toLocalInput(w.toMs);
    absolute.dataset['open'] = 'true';
    return;
  }
  go({ from: value, to: 'now' });
}

function applyAbsolute(): void {
  const f = new Date(fromInput.value).getTime();
  const t = new Date(toInput.value).getTime();
  if (Number.isFinite(f) && Number.isFinite(t) && t > f) go({ from: new Date(f).toISOString(), to: new Date(t).toISOString() });
}

/** Changes the state, records it in the URL, re-renders. */
function go(patch: Partial<Omit<State, 'filters'>> & { filters?: State['filters'] }): void {
  const prev = state;
  state = { ...state, ...patch, filters: patch.filters ? Object.fromEntries(Object.entries(patch.filters).filter(([, v]) => v)) : state.filters };
  if (patch.view && patch.view !== prev.view) state.extra = {};
  history.pushState(null, '', stateUrl(state));
  const onlyRequest = Object.keys(patch).length === 1 && 'request' in patch;
  if (onlyRequest) {
    if (state.request) void drawer.showRequest(state.request);
    return;
  }
  void render();
}

function syncControls(): void {
  for (const a of tabs.querySelectorAll<HTMLAnchorElement>('a')) a.classList.toggle('on', a.dataset['view'] === state.view);
  for (const d of FILTER_DIMS) {
    const sel = filterSelects[d];
    const v = state.filters[d] ?? '';
    if (v && ![...sel.options].some((o) => o.value === v)) sel.appendChild(h('option', { value: v }, v));
    sel.value = v;
  }
  const relative = (RELATIVE_WINDOWS as readonly string[]).includes(state.from) && state.to === 'now';
  windowSelect.value = relative ? state.from : 'absolute';
  absolute.dataset['open'] = relative ? 'false' : 'true';
  if (!relative) {
    const w = resolveWindow(state, Date.now());
    fromInput.value = toLocalInput(w.fromMs);
    toInput.value = toLocalInput(w.toMs);
  }
  refreshSelect.value = String(state.refreshS);
  if (timer) clearInterval(timer);
  timer = state.refreshS > 0 ? setInterval(() => void render(), state.refreshS * 1000) : null;
}

/** Filter dropdown values for the window: loaded after the charts, never blocking them. */
function loadLabels(win: { from: string; to: string }, signal: AbortSignal): void {
  const key = `${state.from}|${state.to}`;
  if (key === labelsKey) return;
  labelsKey = key;
  for (const d of FILTER_DIMS) {
    labels(d, win, signal)
      .then((values) => {
        const sel = filterSelects[d];
        const v = state.filters[d] ?? '';
        replace(sel, h('option', { value: '' }, 'all'), ...[...new Set([...values, ...(v ? [v] : [])])].map((x) => h('option', { value: x }, x)));
        sel.value = v;
      })
      .catch(() => {
        labelsKey = '';
      });
  }
}

async function render(): Promise<void> {
  ctl?.abort();
  const c = new AbortController();
  ctl = c;
  if (current?.view !== state.view) {
    current?.handle.destroy();
    for (const [id, u] of charts) {
      u.destroy();
      charts.delete(id);
    }
    current = { view: state.view, handle: FACTORIES[state.view](content) };
  }
  syncControls();
  const win = resolveWindow(state, Date.now());
  document.title = `${VIEW_TITLES[state.view]} · inferlens`;
  const ctx: ViewContext = {
    state,
    win,
    filters: apiFilters(state),
    signal: c.signal,
    openSamples: (q) => void drawer.showSamples(q),
    openRequest: (id) => go({ request: id }),
    setFilters: (patch) => go({ filters: { ...state.filters, ...Object.fromEntries(Object.entries(patch).map(([k, v]) => [k, v ?? undefined])) } }),
    setExtra: (patch) => {
      const extra = { ...state.extra };
      for (const [k, v] of Object.entries(patch)) {
        if (v == null) delete extra[k];
        else extra[k] = v;
      }
      go({ extra });
    },
  };
  if (state.request && drawer.el.dataset['kind'] !== 'request') void drawer.showRequest(state.request);
  await current.handle.update(ctx);
  if (c.signal.aborted) return;
  // The filter dropdowns fill after the panels: their six distinct-value scans would otherwise
  // share the CPU with the panel queries of the first render.
  loadLabels(win, c.signal);
  renders++;
  document.body.dataset['renders'] = String(renders);
  updated.textContent = `updated ${fmtTime(Date.now())} · step ${win.step}`;
}

window.addEventListener('popstate', () => {
  state = parseState(location);
  void render();
  if (state.request) void drawer.showRequest(state.request);
});

let resizeTimer: ReturnType<typeof setTimeout> | null = null;
window.addEventListener('resize', () => {
  if (resizeTimer) clearTimeout(resizeTimer);
  resizeTimer = setTimeout(() => {
    for (const u of charts.values()) {
      const w = u.root.parentElement?.clientWidth;
      if (w) u.setSize({ width: Math.max(300, w), height: u.height });
    }
  }, 150);
});

/** Shows who is signed in; sign-out only for a cookie session (a bearer key or an open server has none). */
function showPrincipal(s: SessionInfo): void {
  who.textContent = describePrincipal(s);
  who.title = s.via === 'anonymous' ? 'This server has no API keys: it answers anyone on this machine.' : `key ${s.principal.id}`;
  signOutButton.hidden = s.via !== 'session';
  document.body.dataset['principal'] = s.principal.id;
}

/** The sign-in form: an API key is exchanged for an HttpOnly session cookie; the page never keeps the key. */
function showSignIn(): void {
  ctl?.abort();
  if (timer) clearInterval(timer);
  timer = null;
  current?.handle.destroy();
  current = null;
  who.textContent = 'not signed in';
  signOutButton.hidden = true;
  document.getElementById('filters')!.hidden = true;
  document.body.dataset['principal'] = '';
  const key = h('input', { id: 'signin-key', type: 'password', placeholder: 'ilk_…', label: 'API key' });
  const msg = h('p', { class: 'form-msg', id: 'signin-msg' });
  replace(
    content,
    h(
      'section',
      { class: 'panel signin', data: { panel: 'signin', state: 'ready' } },
      h('header', null, h('h3', null, 'Sign in')),
      h(
        'p',
        { class: 'panel-sub' },
        'This server needs an API key. Create one with ',
        h('code', null, 'inferlens keys create --role read'),
        ' (operate to silence and approve).',
      ),
      form(
        'controls',
        () => {
          msg.textContent = '';
          signIn(key.value.trim())
            .then(() => location.reload())
            .catch((e: unknown) => (msg.textContent = e instanceof ApiError ? e.message : String(e)));
        },
        h('label', null, 'API key ', key),
        h('button', { type: 'submit', id: 'signin-submit' }, 'sign in'),
      ),
      msg,
    ),
  );
  key.focus();
}

whenUnauthenticated(showSignIn);

async function boot(): Promise<void> {
  if (location.pathname === '/' || !(VIEWS as readonly string[]).includes(location.pathname.slice(1))) history.replaceState(null, '', stateUrl(state));
  let session: SessionInfo | null;
  try {
    session = await loadSession();
  } catch (e) {
    replace(content, h('div', { class: 'error' }, `the server did not answer: ${(e as Error).message}`));
    return;
  }
  if (!session) return showSignIn();
  showPrincipal(session);
  await render();
}

void boot();
