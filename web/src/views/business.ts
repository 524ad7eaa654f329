/** Business: conversion and feedback by version and tenant, from the feedback API when it lands. */
import { call, field, records } from '../api.ts';
import { h, replace } from '../dom.ts';
import { Panel } from '../panel.ts';
import type { ViewContext, ViewHandle } from '../view.ts';
import { guard, recordTable } from './common.ts';

export function businessView(root: HTMLElement): ViewHandle {
  const conv = new Panel('business-feedback', 'Conversion and feedback by version and tenant', 'feedback and business events joined to requests by request_id', true);
  replace(root, h('div', { class: 'grid' }, conv.el));
  return {
    async update(ctx: ViewContext) {
      const { win, filters, signal } = ctx;
      conv.loading();
      await guard(conv, signal, 'POST /v1/quality/feedback', 'Conversion and feedback rates are joined to requests by the quality API (POST /v1/feedback stores them).', async () => {
        const data = await call('POST', '/v1/quality/feedback', { from: win.from, to: win.to, filters, group_by: ['model_version', 'tenant'] }, signal);
        const rows = records(field(data, 'rows'));
        if (rows.length === 0) return conv.needs(['feedback'], 'Send feedback or conversion events (POST /v1/feedback with request_id) to see them here.');
        conv.ready(recordTable(rows));
      });
    },
    destroy() {
      replace(root);
    },
  };
}
