/** Generative models: time to first token and time per output token, P50 / P99. */
import { fmtMs } from '../../format.ts';
import type { Panel } from '../../panel.ts';
import { timeSeries } from '../../charts/timeseries.ts';
import { SYNC, chartBox, col, hasAny } from './shared.ts';
import type { Buckets } from './shared.ts';

export function drawGenerative(panel: Panel, b: Buckets): void {
  const { grid, xs, xRange } = b;
  const ttft = [
    { label: 'TTFT P50', color: '#6fa8dc', values: col(grid, 'p50(ttft_ms)') },
    { label: 'TTFT P99', color: '#d64545', values: col(grid, 'p99(ttft_ms)') },
    { label: 'TPOT P50', color: '#93c47d', values: col(grid, 'p50(tpot_ms)'), y2: true },
    { label: 'TPOT P99', color: '#38761d', values: col(grid, 'p99(tpot_ms)'), y2: true },
  ].filter((s) => hasAny(s.values));
  if (ttft.length === 0) {
    panel.needs(['ttft_ms', 'tpot_ms'], 'Generative models: send the time to first token and the time per output token.');
    return;
  }
  timeSeries(chartBox(panel), { id: 'generative', xs, xRange, series: ttft, fmt: fmtMs, fmt2: fmtMs, syncKey: SYNC });
  panel.ready();
}
