/**
 * Which stage grew (`POST /v1/analysis/stages`): P99 per stage against the window before, the stage
 * whose growth is significant (Holm) and ≥ ×1.1, and a replica slower than its peers.
 */
import { STAGES } from '../../../../src/schema/vocabulary.ts';
import { approxError, call, field, num, records, str } from '../../api.ts';
import { h } from '../../dom.ts';
import { fmtMs, fmtNum } from '../../format.ts';
import type { Panel } from '../../panel.ts';
import type { ViewContext } from '../../view.ts';
import { table } from '../common.ts';
import { approxNote } from './shared.ts';

/** Loads the panel; resolves to a line naming the slow replica ('' when none), for the per-replica panel. */
export async function loadStageShift(panel: Panel, ctx: ViewContext): Promise<string> {
  const { win, filters, signal } = ctx;
  const data = await call('POST', '/v1/analysis/stages', { from: win.from, to: win.to, filters, approx: true }, signal);
  if (signal.aborted) return '';
  panel.setMeta(approxNote(approxError(data)).replace(/^ · /, ''));
  const stages = records(field(data, 'stages'));
  const grew = str(field(data, 'grewMost'));
  const slow = field(data, 'slowReplica');
  const slowReplica = slow && typeof slow === 'object' ? slow : null;
  const slowLine = slowReplica
    ? h(
        'p',
        { class: 'panel-sub bad', data: { slowReplica: str(field(slowReplica, 'replica')) ?? '' } },
        h('strong', null, `Replica ${str(field(slowReplica, 'replica')) ?? ''}`),
        `: ${str(field(slowReplica, 'stage'))?.replace('_ms', '') ?? ''} median ${fmtMs(num(field(slowReplica, 'ms')))}, ${fmtNum(num(field(slowReplica, 'ratio')), 1)}× its peers' ${fmtMs(num(field(slowReplica, 'peersMs')))}`,
      )
    : null;
  const note = slowReplica ? `${str(field(slowReplica, 'replica')) ?? ''}: ${str(field(slowReplica, 'stage')) ?? ''} ${fmtNum(num(field(slowReplica, 'ratio')), 1)}× its peers` : '';
  if (stages.length === 0) {
    panel.needs([...STAGES], 'Per-stage timings show which stage made the tail grow.');
    return note;
  }
  panel.ready(
    h('p', { class: 'panel-sub', data: { grew: grew ?? '' } }, grew ? `Grew most: ${grew.replace('_ms', '')} (significant, ≥ ×1.1)` : 'No stage grew significantly (Holm p < 0.05) and by ×1.1 or more against the previous window.'),
    slowLine,
    table(
      ['stage', 'P99 now', 'before', 'Δ', 'above old P99 now / before', 'p (Holm)'],
      stages.map((s) => [
        str(s['stage']) ?? '',
        fmtMs(num(s['currentMs'])),
        fmtMs(num(s['baselineMs'])),
        num(s['deltaMs']) == null ? '–' : `${num(s['deltaMs'])! >= 0 ? '+' : ''}${fmtMs(num(s['deltaMs']))}`,
        `${fmtNum(num(s['aboveCurrent']), 0)} of ${fmtNum(num(s['nCurrent']), 0)} / ${fmtNum(num(s['aboveBaseline']), 0)} of ${fmtNum(num(s['nBaseline']), 0)}`,
        num(s['pValue']) == null ? '–' : num(s['pValue'])! < 1e-4 ? '< 0.0001' : fmtNum(num(s['pValue'])),
      ]),
      (i) => ({ stage: str(stages[i]!['stage']) ?? '' }),
      (i) => (stages[i]!['grew'] === true ? 'significant' : ''),
    ),
  );
  return note;
}
