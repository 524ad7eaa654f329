/**
 * The review as one self-contained HTML page a platform owner can send as is: the same blocks as
 * the Markdown (document.ts), its charts drawn as static SVG (no script, no external file), and a
 * print style (A4, sections kept whole where they fit, tables repeat their header on a new page).
 */
import { reportDocument } from './document.ts';
import type { BarChart, Block, TimelineChart } from './document.ts';
import type { Report } from './report.ts';

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
/** Escapes, then turns `code` and **strong** into their elements. */
const inline = (s: string) =>
  esc(s)
    .replace(/`([^`]+)`/g, '<code>$1</code>')
    .replace(/\*\*([^*]+)\*\*/g, '<strong>$1</strong>');

const NOW_COLOUR = '#2563eb';
const BEFORE_COLOUR = '#cbd5e1';

function fmt(unit: BarChart['unit'], v: number): string {
  if (unit === 'ms') return v >= 1000 ? `${(v / 1000).toFixed(2)} s` : `${v.toFixed(v >= 100 ? 0 : 1)} ms`;
  if (unit === 'ratio') return `${(v * 100).toFixed(1)} %`;
  if (unit === 'money') return v.toFixed(v >= 100 ? 0 : v >= 1 ? 2 : 4);
  return Math.round(v).toLocaleString('en');
}

/** Horizontal bars: per row, the period's value (blue) over the previous period's (grey). */
export function barChartSvg(c: BarChart): string {
  const rows = c.rows.filter((r) => r.now != null || r.before != null);
  if (rows.length === 0) return '';
  const max = Math.max(...rows.flatMap((r) => [r.now ?? 0, r.before ?? 0]), c.unit === 'ratio' ? 0.01 : 1e-9);
  const labelW = 170;
  const barW = 420;
  const rowH = 34;
  const top = 26;
  const h = top + rows.length * rowH + 8;
  const w = labelW + barW + 90;
  const parts: string[] = [
    `<svg class="chart bars" role="img" aria-label="${esc(c.title)}" viewBox="0 0 ${w} ${h}" width="${w}" height="${h}" xmlns="http://www.w3.org/2000/svg">`,
  ];
  parts.push(`<title>${esc(c.title)}</title>`);
  parts.push(`<rect x="${labelW}" y="6" width="10" height="10" fill="${NOW_COLOUR}"/><text x="${labelW + 14}" y="15" class="legend">this period</text>`);
  parts.push(
    `<rect x="${labelW + 100}" y="6" width="10" height="10" fill="${BEFORE_COLOUR}"/><text x="${labelW + 114}" y="15" class="legend">previous period</text>`,
  );
  rows.forEach((r, i) => {
    const y = top + i * rowH;
    parts.push(
      `<text x="${labelW - 8}" y="${y + 16}" text-anchor="end" class="label">${esc(r.label.length > 26 ? `${r.label.slice(0, 25)}…` : r.label)}</text>`,
    );
    for (const [j, v, colour] of [
      [0, r.now, NOW_COLOUR],
      [1, r.before, BEFORE_COLOUR],
    ] as const) {
      const by = y + 2 + j * 14;
      if (v == null) {
        parts.push(`<text x="${labelW + 4}" y="${by + 10}" class="value muted">–</text>`);
        continue;
      }
      const bw = Math.max(1, (v / max) * barW);
      parts.push(
        `<rect class="bar ${j === 0 ? 'now' : 'before'}" x="${labelW}" y="${by}" width="${bw.toFixed(1)}" height="12" fill="${colour}"><title>${esc(`${r.label}: ${fmt(c.unit, v)}`)}</title></rect>`,
      );
      parts.push(`<text x="${(labelW + bw + 4).toFixed(1)}" y="${by + 10}" class="value">${esc(fmt(c.unit, v))}</text>`);
    }
  });
  parts.push('</svg>');
  return `<figure>${parts.join('')}<figcaption>${esc(c.title)}</figcaption></figure>`;
}

/** One time axis from the backtest's start to the first firing: signals (orange dots), rules (red), backtest firings (green). */
export function timelineSvg(c: TimelineChart): string {
  const to = Date.parse(c.to);
  // From a few minutes before the first mark (within the chart's window), so the marks spread out.
  const first = Math.min(...c.marks.map((m) => Date.parse(m.at)), to);
  const from = Math.max(Date.parse(c.from), Math.floor((first - 5 * 60_000) / 60_000) * 60_000);
  const span = Math.max(60_000, to - from);
  const left = 20;
  const width = 640;
  const rowH = 18;
  const marks = [...c.marks].sort((a, b) => Date.parse(a.at) - Date.parse(b.at));
  const axisY = 20 + marks.length * rowH + 6;
  const h = axisY + 30;
  const x = (t: string) => left + ((Math.min(to, Math.max(from, Date.parse(t))) - from) / span) * width;
  const colour = { signal: '#ea580c', rule: '#dc2626', backtest: '#16a34a' } as const;
  const parts: string[] = [
    `<svg class="chart timeline" role="img" aria-label="${esc(c.title)}" viewBox="0 0 ${left + width + 200} ${h}" width="${left + width + 200}" height="${h}" xmlns="http://www.w3.org/2000/svg">`,
    `<title>${esc(c.title)}</title>`,
  ];
  parts.push(`<line x1="${left}" y1="${axisY}" x2="${left + width}" y2="${axisY}" stroke="#64748b"/>`);
  const tickMs = span <= 20 * 60_000 ? 60_000 * (span <= 10 * 60_000 ? 1 : 2) : 300_000;
  for (let t = Math.ceil(from / tickMs) * tickMs; t <= to; t += tickMs) {
    const tx = left + ((t - from) / span) * width;
    parts.push(
      `<line x1="${tx.toFixed(1)}" y1="${axisY}" x2="${tx.toFixed(1)}" y2="${axisY + 5}" stroke="#64748b"/><text x="${tx.toFixed(1)}" y="${axisY + 18}" text-anchor="middle" class="tick">${new Date(t).toISOString().slice(11, 16)}</text>`,
    );
  }
  marks.forEach((m, i) => {
    const mx = x(m.at);
    const my = 20 + i * rowH;
    parts.push(`<line x1="${mx.toFixed(1)}" y1="${my}" x2="${mx.toFixed(1)}" y2="${axisY}" stroke="${colour[m.what]}" stroke-dasharray="2 3"/>`);
    parts.push(
      `<circle class="mark ${m.what}" cx="${mx.toFixed(1)}" cy="${my}" r="5" fill="${colour[m.what]}"><title>${esc(`${m.label} at ${m.at.slice(11, 19)} UTC`)}</title></circle>`,
    );
    parts.push(`<text x="${(mx + 9).toFixed(1)}" y="${my + 4}" class="label">${esc(`${m.at.slice(11, 16)} ${m.label}`)}</text>`);
  });
  parts.push('</svg>');
  return `<figure>${parts.join('')}<figcaption>${esc(c.title)}: <span style="color:${colour.signal}">●</span> a signal moved, <span style="color:${colour.rule}">●</span> the first rule fired, <span style="color:${colour.backtest}">●</span> fired in the backtest</figcaption></figure>`;
}

function blockHtml(b: Block): string {
  switch (b.kind) {
    case 'h1':
      return `<h1>${inline(b.text)}</h1>`;
    case 'h2':
      return `<h2>${inline(b.text)}</h2>`;
    case 'h3':
      return `<h3>${inline(b.text)}</h3>`;
    case 'p':
      return `<p>${inline(b.text)}</p>`;
    case 'note':
      return `<p class="note">${inline(b.text)}</p>`;
    case 'list':
      return `<ul>${b.items.map((i) => `<li>${inline(i)}</li>`).join('')}</ul>`;
    case 'table':
      return `<table><thead><tr>${b.head.map((c) => `<th>${inline(c)}</th>`).join('')}</tr></thead><tbody>${b.rows.map((r) => `<tr>${r.map((c, i) => `<td${i > 0 && /^[−+\-–\d.,]/.test(c) ? ' class="num"' : ''}>${inline(c)}</td>`).join('')}</tr>`).join('')}</tbody></table>`;
    case 'code':
      return `<pre><code class="language-${esc(b.lang)}">${esc(b.text)}</code></pre>`;
    case 'chart':
      return b.chart.kind === 'bars' ? barChartSvg(b.chart) : timelineSvg(b.chart);
  }
}

const STYLE = `
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: #0f172a; max-width: 980px; margin: 24px auto; padding: 0 24px; }
h1 { font-size: 22px; margin: 0 0 4px; }
h2 { font-size: 17px; margin: 28px 0 8px; padding-bottom: 4px; border-bottom: 1px solid #e2e8f0; }
h3 { font-size: 15px; margin: 18px 0 6px; }
section { break-inside: avoid-page; }
table { border-collapse: collapse; width: 100%; margin: 6px 0 12px; font-size: 13px; }
th, td { border-bottom: 1px solid #e2e8f0; padding: 4px 8px; text-align: left; vertical-align: top; }
th { background: #f8fafc; font-weight: 600; }
td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
code { font: 12px ui-monospace, Menlo, Consolas, monospace; background: #f1f5f9; padding: 0 3px; border-radius: 3px; }
pre { background: #f8fafc; border: 1px solid #e2e8f0; padding: 8px 12px; overflow-x: auto; }
pre code { background: none; padding: 0; }
.note { color: #64748b; font-style: italic; }
figure { margin: 8px 0 12px; }
figcaption { color: #475569; font-size: 12px; }
svg.chart { max-width: 100%; height: auto; }
svg text { font: 11px system-ui, sans-serif; fill: #334155; }
svg text.muted { fill: #94a3b8; }
thead { display: table-header-group; }
tr, figure, pre { break-inside: avoid; }
@page { size: A4; margin: 14mm; }
@media print { body { margin: 0; max-width: none; padding: 0; font-size: 12px; } h2 { break-after: avoid; } }
`;

/** The review as a standalone HTML document; each h2 opens a <section>. */
export function reportHtml(r: Report): string {
  const blocks = reportDocument(r);
  const body: string[] = [];
  let open = false;
  for (const b of blocks) {
    if (b.kind === 'h2') {
      if (open) body.push('</section>');
      body.push(`<section data-section="${esc(b.text)}">`);
      open = true;
    }
    body.push(blockHtml(b));
  }
  if (open) body.push('</section>');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>inferlens review ${esc(r.period.from.slice(0, 16))} → ${esc(r.period.to.slice(0, 16))}</title>
<style>${STYLE}</style></head>
<body>
${body.join('\n')}
</body></html>
`;
}
