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
import { ApiError, call, field, num, records, str } from '../api.ts';
import { form, h, replace } from '../dom.ts';
import type { Child } from '../dom.ts';
import { fmtNum, fmtTime } from '../format.ts';
import { Panel } from '../panel.ts';
import { FILTER_DIMS } from '../state.ts';
import type { ViewContext, ViewHandle } from '../view.ts';
import { backtestPanel } from './backtest.ts';
import { guard, table, tag } from './common.ts';

type Rec = Record<string, unknown>;

const ALERTING_OFF = 'The alerting API is not mounted: start inferlens with alerting enabled (alerting.enabled).';
const SEVERITY_ORDER: Record<string, number> = { critical: 0, warning: 1, info: 2 };
const STATE_ORDER: Record<string, number> = { firing: 0, pending: 1, resolved: 2 };

function when(v: unknown): string {
  const t = Date.parse(str(v) ?? '');
  return Number.isFinite(t) ? fmtTime(t) : '–';
}

function labelChips(labels: unknown, skip: readonly string[] = ['alertname', 'severity']): Child[] {
  if (typeof labels !== 'object' || labels === null) return [];
  return Object.entries(labels as Rec)
    .filter(([k, v]) => !skip.includes(k) && v !== '' && v != null)
    .map(([k, v]) => h('span', { class: 'chip' }, `${k}=${String(v)}`));
}

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
  const history = new Panel('alerts-history', 'Incident history', 'the incident log over the window (kept in the store across restarts): each incident with its alerts, notifications, actions and their timeline', true);
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
        const rows = records(await call('GET', '/v1/incidents', undefined, signal));
        if (rows.length === 0) return incidents.empty('No incidents.');
        incidents.ready(
          table(
            ['incident', 'status', 'tier', 'group', 'opened', 'resolved', 'notifications', 'alerts'],
            rows.map((r) => [
              str(r['id']) ?? '',
              tag(str(r['status']) ?? ''),
              tag(str(r['tier']) ?? ''),
              h('span', null, ...labelChips(r['groupLabels'], [])),
              when(r['openedAt']),
              when(r['resolvedAt']),
              fmtNum(num(r['notifications']), 0),
              h('span', null, ...records(r['alerts']).map((a) => h('span', { class: 'chip' }, `${str(a['alertname']) ?? ''} (${str(a['state']) ?? ''})`))),
            ]),
            (i) => ({ incident: str(rows[i]!['id']) ?? '' }),
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
    const data = records(await call('GET', '/v1/alerts', undefined, signal));
    // The global filters apply to alerts that carry that label (an alert without it stays).
    const active = FILTER_DIMS.filter((d) => state.filters[d]);
    const rows = data
      .filter((a) => active.every((d) => {
        const v = field(a['labels'], d);
        return v == null || v === '' || v === state.filters[d];
      }))
      .sort((a, b) => (STATE_ORDER[str(a['state']) ?? ''] ?? 9) - (STATE_ORDER[str(b['state']) ?? ''] ?? 9) || (SEVERITY_ORDER[str(a['severity']) ?? ''] ?? 9) - (SEVERITY_ORDER[str(b['severity']) ?? ''] ?? 9));
    const firing = rows.filter((a) => a['state'] === 'firing').length;
    const pending = rows.filter((a) => a['state'] === 'pending').length;
    alerts.setMeta(`${firing} firing · ${pending} pending`);
    const scope = active.length ? ` for ${active.map((d) => `${d}=${state.filters[d]}`).join(', ')}` : '';
    if (rows.length === 0) return alerts.empty(`Nothing firing or pending${scope}.`);
    alerts.ready(
      table(
        ['state', 'severity', 'alert', 'labels', 'summary', 'value', 'since', 'muted', 'incident', ''],
        rows.map((a) => {
          const silenced = Array.isArray(a['silencedBy']) ? (a['silencedBy'] as unknown[]).length : 0;
          const inhibited = str(a['inhibitedBy']);
          return [
            tag(str(a['state']) ?? ''),
            tag(str(a['severity']) ?? ''),
            h('strong', null, str(a['alertname']) ?? ''),
            h('span', null, ...labelChips(a['labels'])),
            h('span', { class: 'wrap' }, str(field(a['annotations'], 'summary')) ?? ''),
            fmtNum(num(a['value'])),
            when(a['since']),
            silenced ? 'silenced' : inhibited ? `inhibited by ${inhibited}` : '',
            str(a['incident']) ?? '',
            h('button', { class: 'silence-alert', title: 'silence this alert for 1 hour', on: { click: () => void silenceAlert(ctx, a) } }, 'silence 1h'),
          ];
        }),
        (i) => ({ alertname: str(rows[i]!['alertname']) ?? '', state: str(rows[i]!['state']) ?? '' }),
        (i) => (rows[i]!['state'] === 'firing' ? 'significant' : ''),
      ),
    );
  }

  /** One line of what a step says: the alert's value, a notification's reason, who acted, an error. */
  function stepDetail(d: Rec): string {
    const parts: string[] = [];
    if (num(d['value']) != null) parts.push(`value ${fmtNum(num(d['value']))}`);
    for (const k of ['reason', 'tier', 'status', 'action', 'state', 'by', 'error', 'comment'] as const) if (str(d[k])) parts.push(`${k} ${str(d[k])}`);
    if (Array.isArray(d['matchers'])) parts.push(`matchers ${(d['matchers'] as unknown[]).map(String).join(', ')}`);
    return parts.join(' · ');
  }

  async function loadHistory(ctx: ViewContext): Promise<void> {
    const { signal, win } = ctx;
    const data = await call('GET', `/v1/incidents?from=${encodeURIComponent(win.from)}&to=${encodeURIComponent(win.to)}`, undefined, signal);
    const rows = records(field(data, 'incidents'));
    const silenced = records(field(data, 'silences'));
    history.setMeta(`${rows.length} incident${rows.length === 1 ? '' : 's'} · ${silenced.length} silence${silenced.length === 1 ? '' : 's'} in the window`);
    if (rows.length === 0) return history.empty('No incident in this window.');
    history.ready(
      ...rows.map((r) => {
        const steps = records(r['timeline']);
        const alertsOf = records(r['alerts']);
        const actionsOf = records(r['actions']);
        return h(
          'details',
          { class: 'incident', data: { incident: str(r['id']) ?? '', status: str(r['status']) ?? '' } },
          h(
            'summary',
            null,
            tag(str(r['status']) ?? ''),
            ' ',
            tag(str(r['tier']) ?? ''),
            ' ',
            h('span', null, ...labelChips(r['groupLabels'], [])),
            ` opened ${when(r['openedAt'])}`,
            str(r['resolvedAt']) ? ` · resolved ${when(r['resolvedAt'])}` : '',
            ` · ${alertsOf.length} alert${alertsOf.length === 1 ? '' : 's'} (${alertsOf.map((a) => str(a['alertname'])).join(', ')})`,
            ` · ${fmtNum(num(r['notifications']), 0)} notification${num(r['notifications']) === 1 ? '' : 's'}`,
            actionsOf.length ? ` · actions: ${actionsOf.map((a) => `${str(a['action']) ?? ''} ${(str(a['state']) ?? '').replace(/_/g, ' ')}`).join(', ')}` : '',
            str(r['acknowledged_at']) ? h('span', { class: 'acked' }, ` · acknowledged ${when(r['acknowledged_at'])} by ${str(r['acknowledged_by']) ?? '?'}`) : ' ',
            str(r['acknowledged_at']) ? null : h('button', { class: 'ack', data: { incident: str(r['id']) ?? '' }, on: { click: (e: Event) => (e.preventDefault(), acknowledge(ctx, str(r['id']) ?? '')) } }, 'acknowledge'),
          ),
          table(
            ['time', 'step', 'alert', 'detail'],
            steps.map((t) => [when(t['ts']), (str(t['kind']) ?? '').replace(/_/g, ' '), str(t['alertname']) ?? '', h('span', { class: 'wrap' }, stepDetail(typeof t['detail'] === 'object' && t['detail'] !== null ? (t['detail'] as Rec) : {}))]),
            (i) => ({ kind: str(steps[i]!['kind']) ?? '' }),
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

  async function silenceAlert(ctx: ViewContext, a: Rec): Promise<void> {
    const labels = (typeof a['labels'] === 'object' && a['labels'] !== null ? a['labels'] : {}) as Rec;
    const matchers = Object.entries(labels)
      .filter(([, v]) => typeof v === 'string' && v !== '')
      .map(([k, v]) => `${k}=${quote(String(v))}`);
    try {
      await call('POST', '/v1/silences', { matchers, duration_s: 3600, comment: `silenced from the dashboard: ${str(a['alertname']) ?? ''}` }, ctx.signal);
    } catch (e) {
      alerts.setMeta(`silence failed: ${(e as Error).message}`);
      return;
    }
    reload();
  }

  async function loadSilences(ctx: ViewContext): Promise<void> {
    const { signal } = ctx;
    const rows = records(await call('GET', '/v1/silences', undefined, signal)).sort((a, b) => (a['state'] === 'expired' ? 1 : 0) - (b['state'] === 'expired' ? 1 : 0));
    const matchersIn = h('input', { id: 'silence-matchers', placeholder: 'alertname="LatencyP99Up", model="ranker"', label: 'matchers' });
    const duration = h('select', { id: 'silence-duration', label: 'duration' }, ...[['1h', 3600], ['4h', 14_400], ['1d', 86_400], ['7d', 604_800]].map(([t, s]) => h('option', { value: String(s) }, String(t))));
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
            tag(str(s['state']) ?? ''),
            h('span', null, ...records(s['matchers']).map((m) => h('span', { class: 'chip' }, `${str(m['name']) ?? ''}${m['isEqual'] === false ? '!' : ''}${m['isRegex'] === true ? '=~' : '='}"${str(m['value']) ?? ''}"`))),
            when(s['startsAt']),
            when(s['endsAt']),
            str(s['createdBy']) ?? '',
            str(s['comment']) ?? '',
            s['state'] !== 'expired'
              ? h(
                  'button',
                  {
                    class: 'expire',
                    on: {
                      click: () =>
                        void call('DELETE', `/v1/silences/${encodeURIComponent(str(s['id']) ?? '')}`, undefined, signal)
                          .then(reload)
                          .catch((err: unknown) => (msg.textContent = (err as Error).message)),
                    },
                  },
                  'expire',
                )
              : '',
          ]),
          (i) => ({ silence: str(rows[i]!['id']) ?? '', state: str(rows[i]!['state']) ?? '' }),
        )
      : h('div', { class: 'placeholder' }, 'No silences.');
    silences.setMeta(`${rows.filter((s) => s['state'] === 'active').length} active`);
    silences.ready(silenceForm, list);
  }

  async function loadActions(ctx: ViewContext): Promise<void> {
    const { signal } = ctx;
    const [data, current] = await Promise.all([call('GET', '/v1/actions', undefined, signal), call('GET', '/v1/alerts', undefined, signal).catch(() => null)]);
    const mode = str(field(data, 'mode')) ?? 'unknown';
    const rows = records(field(data, 'actions')).sort((a, b) => (str(b['proposedAt']) ?? '').localeCompare(str(a['proposedAt']) ?? ''));
    // A proposal whose alert is no longer firing or pending is stale: say so, offer to reject it.
    const live = current === null ? null : new Set(records(current).filter((a) => a['state'] === 'firing' || a['state'] === 'pending').map((a) => str(a['fingerprint']) ?? ''));
    const stale = (r: Rec) => live !== null && r['state'] === 'awaiting_approval' && !live.has(str(field(r['alert'], 'fingerprint')) ?? '');
    const modeLine = h('p', { class: 'panel-sub', data: { mode } }, 'Mode ', tag(mode), mode === 'dry_run' ? ' · proposed and audited, never sent' : mode === 'approval' ? ' · sent once approved here' : ' · sent at once');
    const waiting = rows.filter((r) => r['state'] === 'awaiting_approval').length;
    actions.setMeta(`${rows.length} action${rows.length === 1 ? '' : 's'}${waiting ? ` · ${waiting} awaiting approval` : ''}`);
    if (rows.length === 0) return actions.ready(modeLine, h('div', { class: 'placeholder' }, 'No actions proposed (a firing alert whose rule has an action proposes one).'));
    const trail = (r: Rec): Child => {
      const steps: Child[] = [h('li', null, `proposed ${when(r['proposedAt'])}`)];
      if (r['approvedAt']) steps.push(h('li', null, `approved ${when(r['approvedAt'])} by ${str(r['approvedBy']) ?? '?'}`));
      if (r['rejectedAt']) steps.push(h('li', null, `rejected ${when(r['rejectedAt'])} by ${str(r['rejectedBy']) ?? '?'}${str(r['rejectReason']) ? `: ${str(r['rejectReason'])}` : ''}`));
      if (r['sentAt']) steps.push(h('li', null, `sent ${when(r['sentAt'])}${str(r['url']) ? ` to ${str(r['url'])}` : ''}`));
      const answer = r['answer'];
      if (r['answeredAt']) steps.push(h('li', null, `answered ${when(r['answeredAt'])}: HTTP ${fmtNum(num(field(answer, 'status')), 0)} ${str(field(answer, 'bodyExcerpt')) ?? ''}`));
      if (r['error']) steps.push(h('li', { class: 'bad' }, `error: ${str(r['error']) ?? ''}`));
      return h('ul', { class: 'trail' }, ...steps);
    };
    const decide = (id: string, verb: 'approve' | 'reject', body: Rec) =>
      void call('POST', `/v1/actions/${encodeURIComponent(id)}/${verb}`, body, signal)
        .then(reload)
        .catch((err: unknown) => actions.setMeta(`${verb} failed: ${(err as Error).message}`));
    const el = table(
      ['', 'action', 'state', 'alert', 'audit trail'],
      rows.map((r) => {
        const params = field(r, 'params');
        const id = str(r['id']) ?? '';
        const isStale = stale(r);
        return [
          // The decision first: at any width the buttons are in view.
          r['state'] === 'awaiting_approval'
            ? h(
                'span',
                { class: 'decide' },
                h('button', { class: 'approve', data: { action: id }, on: { click: () => decide(id, 'approve', {}) } }, 'approve'),
                h('button', { class: 'reject', data: { action: id }, on: { click: () => decide(id, 'reject', { reason: isStale ? 'the alert is no longer firing' : 'rejected in the dashboard' }) } }, isStale ? 'dismiss' : 'reject'),
              )
            : '',
          h('span', null, h('strong', null, str(r['action']) ?? ''), ' ', ...(typeof params === 'object' && params !== null ? Object.entries(params as Rec).map(([k, v]) => h('span', { class: 'chip' }, `${k}=${String(v)}`)) : [])),
          h('span', null, tag(str(r['state']) ?? ''), isStale ? h('div', { class: 'stale' }, 'stale: its alert is no longer firing') : null),
          h('span', null, h('strong', null, str(field(r['alert'], 'alertname')) ?? ''), ' ', ...labelChips(field(r['alert'], 'labels')), str(r['incident']) ? h('div', { class: 'panel-sub' }, `incident ${str(r['incident'])}`) : null),
          trail(r),
        ];
      }),
      (i) => ({ action: str(rows[i]!['id']) ?? '', state: str(rows[i]!['state']) ?? '', stale: String(stale(rows[i]!)) }),
    );
    el.querySelector('table')?.classList.add('actions');
    actions.ready(modeLine, el);
  }

  async function loadRules(ctx: ViewContext): Promise<void> {
    const data = await call('GET', '/v1/rules', undefined, ctx.signal);
    const groups = records(field(data, 'groups'));
    const rows = groups.flatMap((g) => records(g['rules']).map((r) => ({ g, r })));
    if (rows.length === 0) return rules.needs(['alerting rules'], 'Load a rule file (alerting.ruleFiles) or the default pack (alerting.defaultRules).');
    const bad = rows.filter(({ r }) => r['health'] !== 'ok' && r['health'] != null).length;
    rules.setMeta(`${groups.length} groups · ${rows.length} rules${bad ? ` · ${bad} unhealthy` : ''}`);
    rules.ready(
      table(
        ['group', 'rule', 'severity', 'kind', 'for', 'health', 'pending / firing', 'judged / no history yet', 'last evaluation', 'last error'],
        rows.map(({ g, r }) => [
          str(g['name']) ?? '',
          h('strong', null, str(r['alert']) ?? ''),
          tag(str(r['severity']) ?? ''),
          str(field(r['condition'], 'kind')) ?? '',
          str(r['for']) ?? '',
          tag(str(r['health']) ?? 'unknown'),
          `${fmtNum(num(field(r['alerts'], 'pending')), 0)} / ${fmtNum(num(field(r['alerts'], 'firing')), 0)}`,
          r['coverage'] ? `${fmtNum(num(field(r['coverage'], 'judged')), 0)} / ${fmtNum(num(field(r['coverage'], 'without_reference')), 0)}` : '',
          when(r['lastEvaluation']),
          h('span', { class: 'wrap' }, str(r['lastError']) ?? ''),
        ]),
        (i) => ({ rule: str(rows[i]!.r['alert']) ?? '' }),
      ),
    );
  }

  async function loadAudit(ctx: ViewContext): Promise<void> {
    const data = await call('GET', '/v1/audit?limit=100', undefined, ctx.signal);
    const rows = records(field(data, 'entries'));
    audit.setMeta(`${rows.length} latest`);
    if (rows.length === 0) return audit.empty('No changes recorded yet.');
    const who = (r: Rec) => {
      const p = r['principal'];
      const tenants = field(p, 'tenants');
      return `${str(field(p, 'name')) ?? '?'} · ${str(field(p, 'role')) ?? '?'}${Array.isArray(tenants) ? ` · ${tenants.join(', ')}` : ''}`;
    };
    audit.ready(
      table(
        ['when', 'who', 'what', 'target', 'details', 'from', 'via'],
        rows.map((r) => [
          when(r['ts']),
          who(r),
          h('strong', null, str(r['action']) ?? ''),
          h('span', { class: 'wrap' }, str(r['target']) ?? ''),
          h('span', { class: 'wrap' }, r['details'] === undefined ? '' : JSON.stringify(r['details']).slice(0, 300)),
          `${str(r['remote']) ?? '?'}${str(r['user_agent']) ? ` · ${(str(r['user_agent']) ?? '').slice(0, 40)}` : ''}`,
          str(r['via']) ?? '',
        ]),
        (i) => ({ audit: str(rows[i]!['action']) ?? '', principal: str(field(rows[i]!['principal'], 'id')) ?? '' }),
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
