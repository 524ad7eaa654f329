/**
 * Alerts: firing and pending alerts (`GET /v1/alerts`, narrowed by the global filters on their
 * labels), incidents (live, and the incident log over the window with each one's timeline: `GET
 * /v1/incidents?from&to`), silences (create with matchers, expire), proposed and sent actions with their
 * audit trail, approve and reject (dismiss, once the alert resolved) buttons, the loaded rules with
 * their health and what they could judge (`GET /v1/rules`), a backtest of those rules over a past
 * range (`./backtest.ts`), and the audit log of every change made through the API (`GET /v1/audit`:
 * who, what, when, from where). The silencer, approver and rejecter are whoever is signed in: the
 * server takes them from the session.
 */
import { ApiError, call, get } from '../api.ts';
import type {
  ActionReply,
  ActionsReply,
  AlertReply,
  AlertmanagerSilence,
  IncidentHistoryReply as HistoryReply,
  IncidentReply,
  RulesReply,
} from '../../../src/schema/replies.ts';
import { form, h, replace } from '../dom.ts';
import type { Child } from '../dom.ts';
import { fmtNum, fmtTime } from '../format.ts';
import { Panel } from '../panel.ts';
import { FILTER_DIMS } from '../state.ts';
import type { ViewContext, ViewHandle } from '../view.ts';
import { backtestPanel } from './backtest.ts';
import { guard, table, tag } from './common.ts';

type Rec = Record<string, unknown>;

/** One entry of `GET /v1/audit` (src/api/audit.ts). */
interface AuditEntryReply {
  ts: string;
  action: string;
  route: string;
  principal: { id: string; name: string; role: string; tenants: readonly string[] | null };
  via: string;
  target: string | null;
  details?: Record<string, unknown>;
  remote: string | null;
  user_agent: string | null;
}

const ALERTING_OFF = 'The alerting API is not mounted: start inferlens with alerting enabled (alerting.enabled).';
const SEVERITY_ORDER: Record<string, number> = { critical: 0, warning: 1, info: 2 };
const STATE_ORDER: Record<string, number> = { firing: 0, pending: 1, resolved: 2 };

function when(v: string | null | undefined): string {
  const t = Date.parse(v ?? '');
  return Number.isFinite(t) ? fmtTime(t) : '–';
}

function labelChips(labels: Record<string, string>, skip: readonly string[] = ['alertname', 'severity']): Child[] {
  return Object.entries(labels)
    .filter(([k, v]) => !skip.includes(k) && v !== '' && v != null)
    .map(([k, v]) => h('span', { class: 'chip' }, `${k}=${v}`));
}

/** A step's detail field as text, when it is one. */
const text = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : typeof v === 'number' ? String(v) : null);

/** `a="x", b=~"y.*"` → ['a="x"', 'b=~"y.*"'] (commas inside quotes kept). */
export function splitMatchers(text: string): string[] {
  return text
    .split(/,\s*(?=[a-zA-Z_][a-zA-Z0-9_]*\s*(?:=~|!~|!=|=))/)
    .map((s) => s.trim())
    .filter(Boolean);
}

const quote = (v: string) => `"${v.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;

export function alertsView(root: HTMLElement): ViewHandle {
  const alerts = new Panel('alerts-alerts', 'Alerts', 'firing and pending, most severe first · the global filters narrow them by label', true);
  const incidents = new Panel('alerts-incidents', 'Incidents', 'alerts grouped for notification, open and recently resolved', true);
  const history = new Panel(
    'alerts-history',
    'Incident history',
    'the incident log over the window (kept in the store across restarts): each incident with its alerts, notifications, actions and their timeline',
    true,
  );
  const silences = new Panel('alerts-silences', 'Silences', 'a matching alert is not notified and proposes no action', true);
  const actions = new Panel('alerts-actions', 'Actions', 'proposed, approved, sent and answered: the audit trail', true);
  const rules = new Panel('alerts-rules', 'Rules', 'loaded rule groups, their health and last evaluation', true);
  const audit = new Panel('alerts-audit', 'Audit log', 'every change made through the API: who, what, when, from where', true);
  const backtest = backtestPanel();
  const all = [alerts, incidents, history, silences, actions, rules, backtest.panel, audit];
  replace(root, h('div', { class: 'grid' }, ...all.map((p) => p.el)));
  let last: ViewContext | null = null;

  /** Reloads after a change (silence created or expired, action approved), unless the view moved on. */
  const reload = () => {
    if (last && !last.signal.aborted) void load(last);
  };

  async function load(ctx: ViewContext): Promise<void> {
    const { signal } = ctx;
    await Promise.all([
      guard(alerts, signal, 'GET /v1/alerts', ALERTING_OFF, () => loadAlerts(ctx)),
      guard(incidents, signal, 'GET /v1/incidents', ALERTING_OFF, async () => {
        const rows = await get<IncidentReply[]>('/v1/incidents', signal);
        if (rows.length === 0) return incidents.empty('No incidents.');
        incidents.ready(
          table(
            ['incident', 'status', 'tier', 'group', 'opened', 'resolved', 'notifications', 'alerts'],
            rows.map((r) => [
              r.id,
              tag(r.status),
              tag(r.tier),
              h('span', null, ...labelChips(r.group_labels, [])),
              when(r.opened_at),
              when(r.resolved_at),
              fmtNum(r.notifications, 0),
              h('span', null, ...r.alerts.map((a) => h('span', { class: 'chip' }, `${a.alertname} (${a.state})`))),
            ]),
            (i) => ({ incident: rows[i]!.id }),
          ),
        );
      }),
      guard(history, signal, 'GET /v1/incidents', ALERTING_OFF, () => loadHistory(ctx)),
      guard(silences, signal, 'GET /v1/silences', ALERTING_OFF, () => loadSilences(ctx)),
      guard(actions, signal, 'GET /v1/actions', ALERTING_OFF, () => loadActions(ctx)),
      guard(rules, signal, 'GET /v1/rules', ALERTING_OFF, () => loadRules(ctx)),
      guard(audit, signal, 'GET /v1/audit', 'The audit log needs GET /v1/audit.', () => loadAudit(ctx)),
    ]);
    backtest.load(ctx);
  }

  async function loadAlerts(ctx: ViewContext): Promise<void> {
    const { signal, state } = ctx;
    const data = await get<AlertReply[]>('/v1/alerts', signal);
    // The global filters apply to alerts that carry that label (an alert without it stays).
    const active = FILTER_DIMS.filter((d) => state.filters[d]);
    const rows = data
      .filter((a) =>
        active.every((d) => {
          const v = a.labels[d];
          return v == null || v === '' || v === state.filters[d];
        }),
      )
      .sort((a, b) => (STATE_ORDER[a.state] ?? 9) - (STATE_ORDER[b.state] ?? 9) || (SEVERITY_ORDER[a.severity] ?? 9) - (SEVERITY_ORDER[b.severity] ?? 9));
    const firing = rows.filter((a) => a.state === 'firing').length;
    const pending = rows.filter((a) => a.state === 'pending').length;
    alerts.setMeta(`${firing} firing · ${pending} pending`);
    const scope = active.length ? ` for ${active.map((d) => `${d}=${state.filters[d]}`).join(', ')}` : '';
    if (rows.length === 0) return alerts.empty(`Nothing firing or pending${scope}.`);
    alerts.ready(
      table(
        ['state', 'severity', 'alert', 'labels', 'summary', 'value', 'since', 'muted', 'incident', ''],
        rows.map((a) => {
          const silenced = a.silenced_by.length;
          const inhibited = a.inhibited_by;
          return [
            tag(a.state),
            tag(a.severity),
            h('strong', null, a.alertname),
            h('span', null, ...labelChips(a.labels)),
            h('span', { class: 'wrap' }, a.annotations['summary'] ?? ''),
            fmtNum(a.value),
            when(a.since),
            silenced ? 'silenced' : inhibited ? `inhibited by ${inhibited}` : '',
            a.incident ?? '',
            h('button', { class: 'silence-alert', title: 'silence this alert for 1 hour', on: { click: () => void silenceAlert(ctx, a) } }, 'silence 1h'),
          ];
        }),
        (i) => ({ alertname: rows[i]!.alertname, state: rows[i]!.state }),
        (i) => (rows[i]!.state === 'firing' ? 'significant' : ''),
      ),
    );
  }

  /** One line of what a step says: the alert's value, a notification's reason, who acted, an error. */
  function stepDetail(d: Rec): string {
    const parts: string[] = [];
    if (typeof d['value'] === 'number') parts.push(`value ${fmtNum(d['value'])}`);
    for (const k of ['reason', 'tier', 'status', 'action', 'state', 'by', 'error', 'comment'] as const) if (text(d[k])) parts.push(`${k} ${text(d[k])}`);
    if (Array.isArray(d['matchers'])) parts.push(`matchers ${(d['matchers'] as unknown[]).map(String).join(', ')}`);
    return parts.join(' · ');
  }

  async function loadHistory(ctx: ViewContext): Promise<void> {
    const { signal, win } = ctx;
    const data = await get<HistoryReply>(`/v1/incidents?from=${encodeURIComponent(win.from)}&to=${encodeURIComponent(win.to)}`, signal);
    const rows = data.incidents;
    const silenced = data.silences;
    history.setMeta(`${rows.length} incident${rows.length === 1 ? '' : 's'} · ${silenced.length} silence${silenced.length === 1 ? '' : 's'} in the window`);
    if (rows.length === 0) return history.empty('No incident in this window.');
    history.ready(
      ...rows.map((r) => {
        const { timeline: steps, alerts: alertsOf, actions: actionsOf } = r;
        return h(
          'details',
          { class: 'incident', data: { incident: r.id, status: r.status } },
          h(
            'summary',
            null,
            tag(r.status),
            ' ',
            tag(r.tier),
            ' ',
            h('span', null, ...labelChips(r.group_labels, [])),
            ` opened ${when(r.opened_at)}`,
            r.resolved_at ? ` · resolved ${when(r.resolved_at)}` : '',
            ` · ${alertsOf.length} alert${alertsOf.length === 1 ? '' : 's'} (${alertsOf.map((a) => a.alertname).join(', ')})`,
            ` · ${fmtNum(r.notifications, 0)} notification${r.notifications === 1 ? '' : 's'}`,
            actionsOf.length ? ` · actions: ${actionsOf.map((a) => `${a.action} ${a.state.replace(/_/g, ' ')}`).join(', ')}` : '',
            r.acknowledged_at ? h('span', { class: 'acked' }, ` · acknowledged ${when(r.acknowledged_at)} by ${r.acknowledged_by ?? '?'}`) : ' ',
            r.acknowledged_at
              ? null
              : h(
                  'button',
                  { class: 'ack', data: { incident: r.id }, on: { click: (e: Event) => (e.preventDefault(), acknowledge(ctx, r.id)) } },
                  'acknowledge',
                ),
          ),
          table(
            ['time', 'step', 'alert', 'detail'],
            steps.map((t) => [when(t.ts), t.kind.replace(/_/g, ' '), t.alertname ?? '', h('span', { class: 'wrap' }, stepDetail(t.detail))]),
            (i) => ({ kind: steps[i]!.kind }),
          ),
        );
      }),
    );
  }

  /** A person acknowledges an incident (the signed-in key is who): written to the incident log. */
  async function acknowledge(ctx: ViewContext, id: string): Promise<void> {
    try {
      await call('POST', `/v1/incidents/${encodeURIComponent(id)}/ack`, {}, ctx.signal);
    } catch (e) {
      history.setMeta(`acknowledge failed: ${(e as Error).message}`);
      return;
    }
    reload();
  }

  async function silenceAlert(ctx: ViewContext, a: AlertReply): Promise<void> {
    const matchers = Object.entries(a.labels)
      .filter(([, v]) => v !== '')
      .map(([k, v]) => `${k}=${quote(v)}`);
    try {
      await call('POST', '/v1/silences', { matchers, duration_s: 3600, comment: `silenced from the dashboard: ${a.alertname}` }, ctx.signal);
    } catch (e) {
      alerts.setMeta(`silence failed: ${(e as Error).message}`);
      return;
    }
    reload();
  }

  async function loadSilences(ctx: ViewContext): Promise<void> {
    const { signal } = ctx;
    const rows = (await get<AlertmanagerSilence[]>('/v1/silences', signal)).sort((a, b) => (a.state === 'expired' ? 1 : 0) - (b.state === 'expired' ? 1 : 0));
    const matchersIn = h('input', { id: 'silence-matchers', placeholder: 'alertname="LatencyP99Up", model="ranker"', label: 'matchers' });
    const duration = h(
      'select',
      { id: 'silence-duration', label: 'duration' },
      ...[
        ['1h', 3600],
        ['4h', 14_400],
        ['1d', 86_400],
        ['7d', 604_800],
      ].map(([t, s]) => h('option', { value: String(s) }, String(t))),
    );
    const comment = h('input', { id: 'silence-comment', placeholder: 'why', label: 'comment' });
    const msg = h('span', { class: 'form-msg', id: 'silence-msg' });
    const silenceForm = form(
      'controls',
      () => {
        const matchers = splitMatchers(matchersIn.value);
        if (matchers.length === 0) {
          msg.textContent = 'give at least one matcher, e.g. alertname="LatencyP99Up"';
          return;
        }
        call('POST', '/v1/silences', { matchers, duration_s: Number(duration.value), comment: comment.value }, signal)
          .then(reload)
          .catch((err: unknown) => (msg.textContent = err instanceof ApiError ? err.message : String(err)));
      },
      h('label', null, 'Matchers ', matchersIn),
      h('label', null, 'for ', duration),
      h('label', null, 'Comment ', comment),
      h('button', { type: 'submit', id: 'silence-create' }, 'create silence'),
      msg,
    );
    const list = rows.length
      ? table(
          ['state', 'matchers', 'starts', 'ends', 'by', 'comment', ''],
          rows.map((s) => [
            tag(s.state ?? ''),
            h(
              'span',
              null,
              ...s.matchers.map((m) => h('span', { class: 'chip' }, `${m.name}${m.isEqual === false ? '!' : ''}${m.isRegex ? '=~' : '='}"${m.value}"`)),
            ),
            when(s.startsAt),
            when(s.endsAt),
            s.createdBy,
            s.comment,
            s.state !== 'expired'
              ? h(
                  'button',
                  {
                    class: 'expire',
                    on: {
                      click: () =>
                        void call('DELETE', `/v1/silences/${encodeURIComponent(s.id)}`, undefined, signal)
                          .then(reload)
                          .catch((err: unknown) => (msg.textContent = (err as Error).message)),
                    },
                  },
                  'expire',
                )
              : '',
          ]),
          (i) => ({ silence: rows[i]!.id, state: rows[i]!.state ?? '' }),
        )
      : h('div', { class: 'placeholder' }, 'No silences.');
    silences.setMeta(`${rows.filter((s) => s.state === 'active').length} active`);
    silences.ready(silenceForm, list);
  }

  async function loadActions(ctx: ViewContext): Promise<void> {
    const { signal } = ctx;
    const [data, current] = await Promise.all([get<ActionsReply>('/v1/actions', signal), get<AlertReply[]>('/v1/alerts', signal)]);
    const mode = data.mode;
    const rows = data.actions.sort((a, b) => b.proposed_at.localeCompare(a.proposed_at));
    // A proposal whose alert is no longer firing or pending is stale: say so, offer to reject it.
    const live = new Set(current.filter((a) => a.state === 'firing' || a.state === 'pending').map((a) => a.fingerprint));
    const stale = (r: ActionReply) => r.state === 'awaiting_approval' && !live.has(r.alert.fingerprint);
    const modeLine = h(
      'p',
      { class: 'panel-sub', data: { mode } },
      'Mode ',
      tag(mode),
      mode === 'dry_run' ? ' · proposed and audited, never sent' : mode === 'approval' ? ' · sent once approved here' : ' · sent at once',
    );
    const waiting = rows.filter((r) => r.state === 'awaiting_approval').length;
    actions.setMeta(`${rows.length} action${rows.length === 1 ? '' : 's'}${waiting ? ` · ${waiting} awaiting approval` : ''}`);
    if (rows.length === 0)
      return actions.ready(modeLine, h('div', { class: 'placeholder' }, 'No actions proposed (a firing alert whose rule has an action proposes one).'));
    const trail = (r: ActionReply): Child => {
      const steps: Child[] = [h('li', null, `proposed ${when(r.proposed_at)}`)];
      if (r.approved_at) steps.push(h('li', null, `approved ${when(r.approved_at)} by ${r.approved_by ?? '?'}`));
      if (r.rejected_at)
        steps.push(h('li', null, `rejected ${when(r.rejected_at)} by ${r.rejected_by ?? '?'}${r.reject_reason ? `: ${r.reject_reason}` : ''}`));
      if (r.sent_at) steps.push(h('li', null, `sent ${when(r.sent_at)}${r.url ? ` to ${r.url}` : ''}`));
      if (r.answered_at)
        steps.push(h('li', null, `answered ${when(r.answered_at)}: HTTP ${fmtNum(r.answer?.status ?? null, 0)} ${r.answer?.body_excerpt ?? ''}`));
      if (r.error) steps.push(h('li', { class: 'bad' }, `error: ${r.error}`));
      return h('ul', { class: 'trail' }, ...steps);
    };
    const decide = (id: string, verb: 'approve' | 'reject', body: Rec) =>
      void call('POST', `/v1/actions/${encodeURIComponent(id)}/${verb}`, body, signal)
        .then(reload)
        .catch((err: unknown) => actions.setMeta(`${verb} failed: ${(err as Error).message}`));
    const el = table(
      ['', 'action', 'state', 'alert', 'audit trail'],
      rows.map((r) => {
        const id = r.id;
        const isStale = stale(r);
        return [
          // The decision first: at any width the buttons are in view.
          r.state === 'awaiting_approval'
            ? h(
                'span',
                { class: 'decide' },
                h('button', { class: 'approve', data: { action: id }, on: { click: () => decide(id, 'approve', {}) } }, 'approve'),
                h(
                  'button',
                  {
                    class: 'reject',
                    data: { action: id },
                    on: { click: () => decide(id, 'reject', { reason: isStale ? 'the alert is no longer firing' : 'rejected in the dashboard' }) },
                  },
                  isStale ? 'dismiss' : 'reject',
                ),
              )
            : '',
          h('span', null, h('strong', null, r.action), ' ', ...Object.entries(r.params).map(([k, v]) => h('span', { class: 'chip' }, `${k}=${String(v)}`))),
          h('span', null, tag(r.state), isStale ? h('div', { class: 'stale' }, 'stale: its alert is no longer firing') : null),
          h(
            'span',
            null,
            h('strong', null, r.alert.alertname),
            ' ',
            ...labelChips(r.alert.labels),
            r.incident ? h('div', { class: 'panel-sub' }, `incident ${r.incident}`) : null,
          ),
          trail(r),
        ];
      }),
      (i) => ({ action: rows[i]!.id, state: rows[i]!.state, stale: String(stale(rows[i]!)) }),
    );
    el.querySelector('table')?.classList.add('actions');
    actions.ready(modeLine, el);
  }

  async function loadRules(ctx: ViewContext): Promise<void> {
    const { groups } = await get<RulesReply>('/v1/rules', ctx.signal);
    const rows = groups.flatMap((g) => g.rules.map((r) => ({ g, r })));
    if (rows.length === 0) return rules.needs(['alerting rules'], 'Load a rule file (alerting.rule_files) or the default pack (alerting.default_rules).');
    const bad = rows.filter(({ r }) => r.health !== 'ok').length;
    rules.setMeta(`${groups.length} groups · ${rows.length} rules${bad ? ` · ${bad} unhealthy` : ''}`);
    rules.ready(
      table(
        ['group', 'rule', 'severity', 'kind', 'for', 'health', 'pending / firing', 'judged / no history yet', 'last evaluation', 'last error'],
        rows.map(({ g, r }) => [
          g.name,
          h('strong', null, r.alert),
          tag(r.severity),
          text(r.condition['kind']) ?? '',
          r.for,
          tag(r.health),
          `${fmtNum(r.alerts.pending, 0)} / ${fmtNum(r.alerts.firing, 0)}`,
          r.coverage ? `${fmtNum(r.coverage.judged, 0)} / ${fmtNum(r.coverage.without_reference, 0)}` : '',
          when(r.last_evaluation),
          h('span', { class: 'wrap' }, r.last_error ?? ''),
        ]),
        (i) => ({ rule: rows[i]!.r.alert }),
      ),
    );
  }

  async function loadAudit(ctx: ViewContext): Promise<void> {
    const rows = (await get<{ entries: AuditEntryReply[] }>('/v1/audit?limit=100', ctx.signal)).entries;
    audit.setMeta(`${rows.length} latest`);
    if (rows.length === 0) return audit.empty('No changes recorded yet.');
    const who = ({ principal: p }: AuditEntryReply) => `${p.name} · ${p.role}${p.tenants ? ` · ${p.tenants.join(', ')}` : ''}`;
    audit.ready(
      table(
        ['when', 'who', 'what', 'target', 'details', 'from', 'via'],
        rows.map((r) => [
          when(r.ts),
          who(r),
          h('strong', null, r.action),
          h('span', { class: 'wrap' }, r.target ?? ''),
          h('span', { class: 'wrap' }, r.details === undefined ? '' : JSON.stringify(r.details).slice(0, 300)),
          `${r.remote ?? '?'}${r.user_agent ? ` · ${r.user_agent.slice(0, 40)}` : ''}`,
          r.via,
        ]),
        (i) => ({ audit: rows[i]!.action, principal: rows[i]!.principal.id }),
      ),
    );
  }

  return {
    async update(ctx: ViewContext) {
      last = ctx;
      for (const p of all) p.loading();
      await load(ctx);
    },
    destroy() {
      replace(root);
    },
  };
}
