/**
 * The review as Markdown that reads well in a chat tool: a heading per section, short tables
 * (GitHub / Slack-compatible pipes), every figure with its sample count and its change against the
 * previous period. Charts are the HTML form's; here their numbers are in the tables beside them.
 */
import { reportDocument } from './document.ts';
import type { Block } from './document.ts';
import type { Report } from './report.ts';

const cell = (v: string) => v.replace(/\|/g, '\\|');

/** One block as Markdown (a chart as nothing). */
export function blockMarkdown(b: Block): string | null {
  switch (b.kind) {
    case 'h1':
      return `# ${b.text}`;
    case 'h2':
      return `## ${b.text}\n`;
    case 'h3':
      return `### ${b.text}\n`;
    case 'p':
      return `${b.text}\n`;
    case 'note':
      return `_${b.text}_\n`;
    case 'list':
      return b.items.map((i) => `- ${i}`).join('\n');
    case 'table':
      return (
        [`| ${b.head.map(cell).join(' | ')} |`, `| ${b.head.map(() => '---').join(' | ')} |`, ...b.rows.map((r) => `| ${r.map(cell).join(' | ')} |`)].join(
          '\n',
        ) + '\n'
      );
    case 'code':
      return ['', '```' + b.lang, b.text, '```', ''].join('\n');
    case 'chart':
      return null;
  }
}

export function reportMarkdown(r: Report): string {
  return reportDocument(r)
    .map(blockMarkdown)
    .filter((s): s is string => s !== null)
    .join('\n');
}
