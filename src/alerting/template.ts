/**
 * Annotation (and action parameter) templates, a small subset of Prometheus' Go templates:
 *   {{ $labels.replica }}   {{ $value }}   {{ $value | humanize }}   {{ $value | humanizePercentage }}
 *   {{ $value | printf "%.2f" }}   {{ $details.rate | humanizePercentage }} (the numbers behind a verdict)
 * humanize: 1234567 → 1.235M, 0.0042 → 4.2m (SI prefixes, 4 significant digits);
 * humanizePercentage: 0.1234 → 12.34%.
 */

const TAG_RE = /\{\{\s*(.*?)\s*\}\}/g;
const PRINTF_RE = /^printf\s+"(%(?:\.(\d+))?([fds]))"$/;

export interface TemplateData {
  labels: Record<string, string>;
  value: number;
  /** The numbers behind a verdict: `{{ $details.rate | humanizePercentage }}` (empty when absent). */
  details?: Record<string, number | string>;
}

function humanize(v: number): string {
  if (v === 0 || !Number.isFinite(v)) return String(v);
  const prefixes: [number, string][] = [
    [1e12, 'T'],
    [1e9, 'G'],
    [1e6, 'M'],
    [1e3, 'k'],
    [1, ''],
    [1e-3, 'm'],
    [1e-6, 'u'],
  ];
  const a = Math.abs(v);
  const [scale, prefix] = prefixes.find(([s]) => a >= s) ?? [1e-6, 'u'];
  return `${Number((v / scale).toPrecision(4))}${prefix}`;
}

type Piece = (input: unknown) => string | number;

function compilePipe(fn: string): Piece | string {
  if (fn === 'humanize') return (x) => humanize(Number(x));
  if (fn === 'humanizePercentage') return (x) => `${Number((Number(x) * 100).toPrecision(4))}%`;
  const p = PRINTF_RE.exec(fn);
  if (p) {
    const digits = p[2] === undefined ? 6 : Number(p[2]);
    if (p[3] === 'f') return (x) => Number(x).toFixed(digits);
    if (p[3] === 'd') return (x) => String(Math.round(Number(x)));
    return (x) => String(x);
  }
  return `unknown template function "${fn}": expected humanize, humanizePercentage or printf "%.2f"`;
}

/** Compiles one `{{ … }}` body; a string is the problem. */
function compileTag(body: string): ((d: TemplateData) => string) | string {
  const [head = '', ...pipes] = body.split('|').map((s) => s.trim());
  let get: (d: TemplateData) => unknown;
  if (head === '$value') get = (d) => d.value;
  else if (/^\$labels\.[a-zA-Z_][a-zA-Z0-9_]*$/.test(head)) {
    const name = head.slice('$labels.'.length);
    get = (d) => d.labels[name] ?? '';
  } else if (/^\$details\.[a-zA-Z_][a-zA-Z0-9_]*$/.test(head)) {
    const name = head.slice('$details.'.length);
    get = (d) => d.details?.[name] ?? '';
  } else return `unknown template value "${head}": expected $value, $labels.<name> or $details.<name>`;
  const fns: Piece[] = [];
  for (const p of pipes) {
    const f = compilePipe(p);
    if (typeof f === 'string') return f;
    fns.push(f);
  }
  return (d) => String(fns.reduce<unknown>((x, f) => f(x), get(d)));
}

/** Problems in a template (empty when it is fine). */
export function checkTemplate(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(TAG_RE)) {
    const t = compileTag(m[1] ?? '');
    if (typeof t === 'string') out.push(t);
  }
  return out;
}

/** Expands a template; a tag that does not compile is left as written (checked at load). */
export function expandTemplate(text: string, data: TemplateData): string {
  if (!text.includes('{{')) return text;
  return text.replace(TAG_RE, (whole, body: string) => {
    const t = compileTag(body);
    return typeof t === 'string' ? whole : t(data);
  });
}

/** Expands every string value of a flat parameter map. */
export function expandParams(params: Record<string, string | number | boolean>, data: TemplateData): Record<string, string | number | boolean> {
  const out: Record<string, string | number | boolean> = {};
  for (const [k, v] of Object.entries(params)) out[k] = typeof v === 'string' ? expandTemplate(v, data) : v;
  return out;
}
