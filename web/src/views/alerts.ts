/** Alerts: firing and pending alerts, incidents, silences, and actions with their audit trail. */
import { call, field, records } from '../api.ts';
import { h, replace } from '../dom.ts';
import { Panel } from '../panel.ts';
import type { ViewContext, ViewHandle } from '../view.ts';
import { guard, recordTable } from './common.ts';

const LISTS = [
  ['alerts', 'Alerts', 'firing and pending, by severity tier'],
  ['incidents', 'Incidents', 'open and recent'],
  ['silences', 'Silences', 'active silences'],
  ['actions', 'Actions', 'proposed, approved, sent and answered (audit trail)'],
] as const;

export function alertsView(root: HTMLElement): ViewHandle {
  const panels = LISTS.map(([id, title, sub]) => ({ id, panel: new Panel(`alerts-${id}`, title, sub, true) }));
  replace(root, h('div', { class: 'grid' }, ...panels.map((p) => p.panel.el)));
  return {
    async update(ctx: ViewContext) {
      const { signal } = ctx;
      await Promise.all(
        panels.map(({ id, panel }) => {
          panel.loading();
          return guard(panel, signal, `GET /v1/${id}`, `The ${id} list comes from the alerting API.`, async () => {
            const data = await call('GET', `/v1/${id}`, undefined, signal);
            const rows = records(Array.isArray(data) ? data : field(data, id));
            panel.ready(rows.length ? recordTable(rows) : h('div', { class: 'placeholder' }, `No ${id}.`));
          });
        }),
      );
    },
    destroy() {
      replace(root);
    },
  };
}
