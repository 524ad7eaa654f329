/**
 * Which stage grew (`POST /v1/analysis/stages`): P99 per stage against the window before, the stage
 * whose growth is significant (Holm) and ≥ ×1.1, and a replica slower than its peers.
 */
import { STAGES } from '../../../../src/schema/vocabulary.ts';
import { approxError, post } from '../../api.ts';
import type { StagesReply } from '../../../../src/schema/replies.ts';
import { h } from '../../dom.ts';
import { fmtMs, fmtNum } from '../../format.ts';
import type { Panel } from '../../panel.ts';
import type { ViewContext } from '../../view.ts';
import { table } from '../common.ts';
import { approxNote } from './shared.ts';

/** Loads the panel; resolves to a line naming the slow replica ('' when none), for the per-replica panel. */
export async function loadStageShift(panel: Panel, ctx: ViewContext): Promise<string> {
  const { win, filters, signal } = ctx;
  const data = await post<StagesReply>('/v1/analysis/stages', { from: win.from, to: win.to, filters, approx: true }, signal);
  if (signal.aborted) return '';
  panel.setMeta(approxNote(approxError(data)).replace(/^ · /, ''));
  const { stages, grew_most: grew, slow_replica: slow } = data;
  const slowLine = slow
    ? h(
        'p',
        { class: 'panel-sub bad', data: { slowReplica: slow.replica } },
        h('strong', null, `Replica ${slow.replica}`),
        `: ${slow.stage.replace('_ms', '')} median ${fmtMs(slow.ms)}, ${fmtNum(slow.ratio, 1)}× its peers' ${fmtMs(slow.peers_ms)}`,
      )
    : null;
  const note = slow ? `${slow.replica}: ${slow.stage} ${fmtNum(slow.ratio, 1)}× its peers` : '';
  if (stages.length === 0) {
    panel.needs([...STAGES], 'Per-stage timings show which stage made the tail grow.');
    return note;
  }
  panel.ready(
    h(
      'p',
      { class: 'panel-sub', data: { grew: grew ?? '' } },
      grew
        ? `Grew most: ${grew.replace('_ms', '')} (significant, ≥ ×1.1)`
        : 'No stage grew significantly (Holm p < 0.05) and by ×1.1 or more against the previous window.',
    ),
    slowLine,
    table(
      ['stage', 'P99 now', 'before', 'Δ', 'above old P99 now / before', 'p (Holm)'],
      stages.map((s) => [
        s.stage,
        fmtMs(s.current_ms),
        fmtMs(s.baseline_ms),
        s.delta_ms == null ? '–' : `${s.delta_ms >= 0 ? '+' : ''}${fmtMs(s.delta_ms)}`,
        `${fmtNum(s.above_current, 0)} of ${fmtNum(s.n_current, 0)} / ${fmtNum(s.above_baseline, 0)} of ${fmtNum(s.n_baseline, 0)}`,
        s.p_value < 1e-4 ? '< 0.0001' : fmtNum(s.p_value),
      ]),
      (i) => ({ stage: stages[i]!.stage }),
      (i) => (stages[i]!.grew ? 'significant' : ''),
    ),
  );
  return note;
}
