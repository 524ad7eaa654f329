/**
 * Cost: money per model and per tenant, per 1,000 requests and per 1,000 tokens, with the trend,
 * and held / busy GPU-seconds and money per node, from one `POST /v1/cost` read (GPU time
 * attributed by execution-time share and priced from the config, plus hosted models' token prices;
 * ARCHITECTURE.md "Cost"); requests and tokens per model and tenant (`/v1/query`). Busy
 * GPU-seconds are summed over a node's GPUs, never averaged: three GPUs at 50 % for a minute are
 * 90 GPU-s, not 30.
 */
import { num, post, query, str } from '../api.ts';
import type { CostLineReply, CostReply } from '../../../src/schema/replies.ts';
import { h, replace } from '../dom.ts';
import { colorFor, fmtNum, fmtPct } from '../format.ts';
import { Panel } from '../panel.ts';
import { timeSeries } from '../charts/timeseries.ts';
import type { ViewContext, ViewHandle } from '../view.ts';
import { guard } from './common.ts';

/**
 * The shortest attribution step the view asks for: a GPU counts as held in a step only when it
 * reported in it, and the collectors read every 15 s by default, so 10 s steps would drop GPU time.
 */
const MIN_COST_STEP = { step: '1m', ms: 60_000 };

interface CostLine {
  key: Record<string, string | null>;
  requests: number;
  tokens: number;
  gpuSeconds: number;
  gpuCost: number | null;
  tokenCost: number | null;
  cost: number | null;
  per1kRequests: number | null;
  per1kTokens: number | null;
  trend: (number | null)[];
  change: number | null;
}

function costLine<K extends string>(r: CostLineReply & { [k in K]?: string | null }, keys: K[]): CostLine {
  return {
    key: Object.fromEntries(keys.map((k) => [k, r[k] ?? null])),
    requests: r.requests,
    tokens: r.input_tokens + r.output_tokens,
    gpuSeconds: r.gpu_seconds,
    gpuCost: r.gpu_cost,
    tokenCost: r.token_cost,
    cost: r.cost,
    per1kRequests: r.cost_per_1k_requests,
    per1kTokens: r.cost_per_1k_tokens,
    trend: r.trend.cost,
    change: r.change,
  };
}

/** Money in the configured currency: 0.045 → "€0.0450", 1234.5 → "€1,234.50". */
function moneyFormat(currency: string): (v: number | null) => string {
  const small = new Intl.NumberFormat('en', { style: 'currency', currency, minimumSignificantDigits: 3, maximumSignificantDigits: 3 });
  const big = new Intl.NumberFormat('en', { style: 'currency', currency, minimumFractionDigits: 2, maximumFractionDigits: 2 });
  return (v) => (v == null || !Number.isFinite(v) ? '–' : Math.abs(v) >= 100 ? big.format(v) : small.format(v));
}

/** A ranked cost table: money columns when priced, GPU-seconds always, the trend as the change per 1,000 requests. */
function costTable(lines: CostLine[], keys: string[], money: ((v: number | null) => string) | null): HTMLElement {
  const head = [
    ...keys,
    'requests',
    'tokens',
    'GPU-seconds',
    ...(money ? ['GPU cost', 'token cost', 'cost', 'per 1,000 requests', 'per 1,000 tokens'] : []),
    'trend',
  ];
  return h(
    'table',
    { class: 'compact' },
    h('thead', null, h('tr', null, ...head.map((x) => h('th', null, x)))),
    h(
      'tbody',
      null,
      ...lines.map((l) =>
        h(
          'tr',
          {
            data: {
              ...Object.fromEntries(keys.map((k) => [k, l.key[k] ?? ''])),
              cost: String(l.cost ?? ''),
              per1kRequests: String(l.per1kRequests ?? ''),
              per1kTokens: String(l.per1kTokens ?? ''),
              gpuSeconds: String(l.gpuSeconds),
            },
          },
          ...keys.map((k) => h('td', null, l.key[k] ?? '–')),
          h('td', null, fmtNum(l.requests, 0)),
          h('td', null, l.tokens ? fmtNum(l.tokens, 0) : '–'),
          h('td', null, fmtNum(l.gpuSeconds, 0)),
          ...(money
            ? [
                h('td', null, money(l.gpuCost)),
                h('td', null, money(l.tokenCost)),
                h('td', null, h('strong', null, money(l.cost))),
                h('td', null, money(l.per1kRequests)),
                h('td', null, money(l.per1kTokens)),
              ]
            : []),
          h(
            'td',
            { title: 'cost per 1,000 requests, second half of the window against the first' },
            l.change == null ? '–' : `${l.change >= 0 ? '▲' : '▼'} ${fmtPct(Math.abs(l.change), 0)}`,
          ),
        ),
      ),
    ),
  );
}

export function costView(root: HTMLElement): ViewHandle {
  const models = new Panel(
    'cost-models',
    'Cost by model',
    "GPU time attributed by each slice's share of execution time on its replica or node, priced per GPU-hour, plus hosted models' token prices",
    true,
  );
  const tenants = new Panel('cost-tenants', 'Cost by tenant', 'the same attribution, summed per tenant', true);
  const trend = new Panel('cost-trend', 'Cost per step by model', 'attributed money per step (GPU-seconds when no price is configured)', true);
  const usage = new Panel('cost-usage', 'Requests and tokens by model and tenant', 'window totals', true);
  const gpu = new Panel(
    'cost-gpu',
    'GPU-seconds by node',
    "held: steps in which a GPU reported; busy = Σ over the node's GPUs of mean utilisation × step",
    true,
  );
  replace(root, h('div', { class: 'grid' }, models.el, tenants.el, trend.el, usage.el, gpu.el));
  return {
    async update(ctx: ViewContext) {
      const { win, filters, signal } = ctx;
      for (const p of [models, tenants, trend, usage, gpu]) p.loading();
      const step = win.stepMs >= MIN_COST_STEP.ms ? win.step : MIN_COST_STEP.step;
      // One cost read feeds four panels; each panel reports its own failure.
      const reply = post<CostReply>('/v1/cost', { from: win.from, to: win.to, step, filters }, signal);
      reply.catch(() => undefined);
      const costPanel = (panel: Panel, fill: (data: CostReply, money: ((v: number | null) => string) | null) => void) =>
        guard(panel, signal, 'POST /v1/cost', 'Money per model and tenant comes from the cost endpoint.', async () => {
          const data = await reply;
          fill(data, data.priced ? moneyFormat(data.currency ?? 'USD') : null);
        });
      await Promise.all([
        costPanel(models, (data, money) => {
          const byModel = data.by_model.map((r) => costLine(r, ['model']));
          if (byModel.length === 0) return models.empty('No requests in this window.');
          const total = costLine(data.total, []);
          // Without prices: GPU-seconds still show, and the note names the settings that unlock money.
          const note = data.unlock
            ? h(
                'div',
                { class: 'needs small', data: { unlock: 'cost' } },
                h('strong', null, 'Money figures need prices. '),
                'Set ',
                h('code', null, 'cost.gpu_hour'),
                ' (price per GPU-hour by pool or GPU model) or ',
                h('code', null, 'cost.tokens'),
                ' (price per 1 M input / output tokens by model) in the config file; ',
                h('code', null, 'cost.currency'),
                ' names the currency. Until then this shows GPU-seconds.',
              )
            : null;
          const unpriced = data.unpriced;
          const unpricedNote = unpriced.length
            ? h(
                'div',
                { class: 'needs small', data: { unpriced: String(unpriced.length) } },
                'GPUs without a price (their time is counted, not their money): ',
                unpriced.map((u) => `${u.pool ?? 'no pool'} / ${u.gpu_model ?? 'no gpu_model'} (${fmtNum(u.gpu_seconds, 0)} GPU-s)`).join(', '),
                ' — add a ',
                h('code', null, 'cost.gpu_hour'),
                ' entry.',
              )
            : null;
          const lost = data.unattributed.filter((u) => u.gpu_seconds > 0);
          const reasons: Record<string, string> = {
            idle: 'idle (no request ran there)',
            no_exec_ms: 'requests without exec_ms',
            other: 'probes and filtered-out traffic',
          };
          const lostNote = lost.length
            ? h(
                'p',
                { class: 'panel-sub', data: { unattributed: lost.map((u) => u.reason).join(',') } },
                'Not attributed: ',
                lost.map((u) => `${reasons[u.reason] ?? u.reason} ${fmtNum(u.gpu_seconds, 0)} GPU-s${money ? ` (${money(u.cost)})` : ''}`).join(' · '),
              )
            : null;
          const summary = h(
            'p',
            {
              class: 'cost-total',
              data: { totalCost: String(total.cost ?? ''), per1kRequests: String(total.per1kRequests ?? ''), per1kTokens: String(total.per1kTokens ?? '') },
            },
            money
              ? `Total ${money(total.cost)} · ${money(total.per1kRequests)} per 1,000 requests · ${money(total.per1kTokens)} per 1,000 tokens · ${fmtNum(total.gpuSeconds, 0)} GPU-s attributed`
              : `${fmtNum(total.gpuSeconds, 0)} GPU-s attributed over ${fmtNum(total.requests, 0)} requests`,
          );
          models.setMeta(`cost step ${step}`);
          models.ready(note, unpricedNote, summary, costTable(byModel, ['model'], money), lostNote);
        }),
        costPanel(tenants, (data, money) => {
          const byTenant = data.by_tenant.map((r) => costLine(r, ['tenant']));
          if (byTenant.length === 0) return tenants.empty('No requests in this window.');
          tenants.ready(costTable(byTenant, ['tenant'], money));
        }),
        costPanel(trend, (data, money) => {
          const byModel = data.by_model.map((r) => costLine(r, ['model']));
          if (byModel.length === 0) return trend.empty('No requests in this window.');
          const xs = data.buckets.map((b) => Date.parse(b));
          const series = byModel.slice(0, 8).map((l, i) => ({ label: l.key['model'] ?? '–', color: colorFor(l.key['model'] ?? '', i), values: l.trend }));
          if (!trend.body.querySelector(':scope > .chart')) trend.ready(h('div', { class: 'chart' }));
          else trend.ready();
          timeSeries(trend.body.querySelector<HTMLElement>('.chart')!, {
            id: 'cost-trend',
            xs,
            xRange: [win.fromMs, win.toMs],
            series,
            stacked: true,
            bars: true,
            fmt: (v) => (money ? money(v) : fmtNum(v, 0)),
            syncKey: 'cost',
            height: 200,
          });
        }),
        costPanel(gpu, (data, money) => {
          const nodes = data.nodes;
          if (nodes.length === 0) return gpu.needs(['gpu_utilization_ratio'], 'Send GPU utilisation readings (DCGM scrape or the collector).');
          const sim = nodes.some((n) => n.simulated);
          gpu.setBadges(...(sim ? ['simulated'] : []));
          gpu.ready(
            h(
              'table',
              { class: 'compact' },
              h(
                'thead',
                null,
                h(
                  'tr',
                  null,
                  ...['node', 'GPUs', 'busy GPU-seconds', 'held GPU-seconds', 'busy share', ...(money ? ['cost'] : []), ''].map((x) => h('th', null, x)),
                ),
              ),
              h(
                'tbody',
                null,
                ...nodes.map((n) => {
                  const held = n.gpu_seconds;
                  const busy = n.busy_gpu_seconds;
                  return h(
                    'tr',
                    { data: { node: n.node, gpuSeconds: String(Math.round(busy)), heldSeconds: String(Math.round(held)) } },
                    h('td', null, n.node || '–'),
                    h('td', null, fmtNum(n.gpus, 0)),
                    h('td', null, fmtNum(busy, 0)),
                    h('td', null, fmtNum(held, 0)),
                    h('td', null, held > 0 ? fmtPct(busy / held, 0) : '–'),
                    ...(money ? [h('td', null, money(n.cost))] : []),
                    h('td', null, n.simulated ? 'simulated' : ''),
                  );
                }),
              ),
            ),
          );
        }),
        guard(usage, signal, 'POST /v1/query', '', async () => {
          const rows = await query(
            {
              from: win.from,
              to: win.to,
              filters,
              group_by: ['model', 'tenant'],
              measures: ['count', 'total(input_tokens)', 'total(output_tokens)', 'mean(total_ms)'],
            },
            signal,
          );
          if (rows.length === 0) return usage.empty('No requests in this window.');
          // Token columns show when the events carry them; a missing one says which field unlocks it.
          // total(): tokens × sample_weight, the tokens of the requests the rows stand for.
          const kinds = (['input_tokens', 'output_tokens'] as const).filter((k) => rows.some((r) => r[`total(${k})`] != null));
          const missing = (['input_tokens', 'output_tokens'] as const).filter((k) => !kinds.includes(k));
          const head = ['model', 'tenant', 'requests', ...kinds.map((k) => k.replace('_', ' ')), ...(kinds.length ? ['tokens / request'] : [])];
          usage.ready(
            missing.length
              ? h(
                  'div',
                  { class: 'needs small', data: { needs: missing.join(',') } },
                  'Token columns need ',
                  ...missing.flatMap((k, i) => [i ? ', ' : '', h('code', null, k)]),
                  ' sent with the events.',
                )
              : null,
            h(
              'table',
              { class: 'compact' },
              h('thead', null, h('tr', null, ...head.map((x) => h('th', null, x)))),
              h(
                'tbody',
                null,
                ...rows
                  .sort((a, b) => (num(b['count']) ?? 0) - (num(a['count']) ?? 0))
                  .map((r) => {
                    const c = num(r['count']) ?? 0;
                    const t = kinds.reduce((a, k) => a + (num(r[`total(${k})`]) ?? 0), 0);
                    const anyT = kinds.some((k) => num(r[`total(${k})`]) != null);
                    return h(
                      'tr',
                      { data: { model: str(r['model']) ?? '', tenant: str(r['tenant']) ?? '' } },
                      h('td', null, str(r['model']) ?? '–'),
                      h('td', null, str(r['tenant']) ?? '–'),
                      h('td', null, fmtNum(c, 0)),
                      ...kinds.map((k) => h('td', null, fmtNum(num(r[`total(${k})`]), 0))),
                      ...(kinds.length ? [h('td', null, anyT && c ? fmtNum(t / c) : '–')] : []),
                    );
                  }),
              ),
            ),
          );
        }),
      ]);
    },
    destroy() {
      replace(root);
    },
  };
}
