/** Number and time formatting shared by charts, tables and legends. */

export function fmtMs(v: number | null | undefined): string {
  if (v == null || !Number.isFinite(v)) return '–';
  if (v >= 10_000) return `${(v / 1000).toFixed(1)} s`;
  if (v >= 1000) return `${(v / 1000).toFixed(2)} s`;
  if (v >= 100) return `${v.toFixed(0)} ms`;
  if (v >= 10) return `${v.toFixed(1)} ms`;
  if (v === 0 || Math.abs(v) >= 0.1) return `${v.toFixed(2)} ms`;
  // Sub-0.1 ms values (queue time on an idle service) in µs, so axis ticks stay distinct.
  return `${(v * 1000).toPrecision(2)} µs`;
}

export function fmtPct(v: number | null | undefined, digits = 2): string {
  if (v == null || !Number.isFinite(v)) return '–';
  return `${(v * 100).toFixed(digits)} %`;
}

export function fmtNum(v: number | null | undefined, digits = 1): string {
  if (v == null || !Number.isFinite(v)) return '–';
  const a = Math.abs(v);
  if (a >= 1e9) return `${(v / 1e9).toFixed(digits)} G`;
  if (a >= 1e6) return `${(v / 1e6).toFixed(digits)} M`;
  if (a >= 1e4) return `${(v / 1e3).toFixed(digits)} k`;
  if (Number.isInteger(v)) return String(v);
  return v.toFixed(a < 1 ? 3 : digits);
}

export function fmtBytes(v: number | null | undefined): string {
  if (v == null || !Number.isFinite(v)) return '–';
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let x = v;
  let i = 0;
  while (Math.abs(x) >= 1024 && i < units.length - 1) {
    x /= 1024;
    i++;
  }
  return `${x.toFixed(i === 0 ? 0 : 1)} ${units[i]}`;
}

export function fmtTime(ms: number): string {
  const d = new Date(ms);
  const p = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}`;
}

/** Stable colours for known series names; others take the palette in order. */
export const COLORS: Record<string, string> = {
  ok: '#3b9c5a',
  error: '#d64545',
  rejected: '#e07b24',
  rate_limited: '#c9a227',
  timeout: '#8c4fd1',
  aborted: '#7a8899',
  cancelled: '#b4a7d6',
  ingress_ms: '#6fa8dc',
  queue_ms: '#e69138',
  batch_ms: '#c27ba0',
  exec_ms: '#3d85c6',
  post_ms: '#93c47d',
  p50: '#6fa8dc',
  p90: '#3d85c6',
  p99: '#d64545',
  p999: '#8c4fd1',
  max: '#999999',
  model_load: '#a61c00',
  bad_input: '#e69138',
  resource_exhausted: '#d64545',
  dependency_timeout: '#8c4fd1',
  replica_fault: '#c27ba0',
  internal: '#444444',
  other: '#999999',
};
const PALETTE = ['#3d85c6', '#e69138', '#6aa84f', '#d64545', '#8e7cc3', '#c27ba0', '#45818e', '#bf9000', '#999999', '#134f5c'];

export function colorFor(name: string, i: number): string {
  return COLORS[name] ?? PALETTE[i % PALETTE.length]!;
}
