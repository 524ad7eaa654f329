/**
 * Config keys are snake_case in files (`storage.retention_days`, `pipeline.max_queue_rows`), like
 * the wire and the event contract; the code reads the typed config in camelCase. The schema is the
 * map between them: each object key of ConfigSchema is read by its snake_case name, and its
 * camelCase spelling (the previous release's) is still accepted with a deprecation, one per key.
 * Keys inside records (model names, label names) are data and stay as they are.
 */
import type { z } from 'zod';
import { snakeCase } from '../schema/index.ts';

type Obj = Record<string, unknown>;
interface Def {
  type: string;
  shape?: Record<string, z.ZodType>;
  innerType?: z.ZodType;
  in?: z.ZodType;
  element?: z.ZodType;
  valueType?: z.ZodType;
  options?: z.ZodType[];
  left?: z.ZodType;
  right?: z.ZodType;
}

const defOf = (s: z.ZodType): Def => (s as unknown as { _zod: { def: Def } })._zod.def;

/** The object shapes a schema position may hold (wrappers unwrapped, every option of a union). */
function shapes(schema: z.ZodType): Record<string, z.ZodType>[] {
  const d = defOf(schema);
  if (d.shape) return [d.shape];
  const inner = d.innerType ?? d.in;
  if (inner) return shapes(inner);
  if (d.options) return d.options.flatMap(shapes);
  if (d.left && d.right) return [...shapes(d.left), ...shapes(d.right)];
  return [];
}

/** The schema of the values of a record or the elements of an array at a position, if it is one. */
function itemsOf(schema: z.ZodType): { kind: 'record' | 'array'; item: z.ZodType } | null {
  const d = defOf(schema);
  if (d.type === 'record' && d.valueType) return { kind: 'record', item: d.valueType };
  if (d.type === 'array' && d.element) return { kind: 'array', item: d.element };
  const inner = d.innerType ?? d.in;
  return inner ? itemsOf(inner) : null;
}

export interface KeyDeprecation {
  /** The key as written, e.g. `storage.retentionDays`. */
  old: string;
  /** Its spelling now, e.g. `storage.retention_days`. */
  now: string;
}

/**
 * Rewrites a config document written with snake_case keys (or the deprecated camelCase ones) into
 * the schema's own keys; unknown keys are kept so the strict schema names them. `found` gets one
 * entry per deprecated key.
 */
export function schemaKeys(schema: z.ZodType, value: unknown, found: KeyDeprecation[], path = ''): unknown {
  const at = (k: string) => (path ? `${path}.${k}` : k);
  if (Array.isArray(value)) {
    const items = itemsOf(schema);
    return items?.kind === 'array' ? value.map((v, i) => schemaKeys(items.item, v, found, `${path}[${i}]`)) : value;
  }
  if (typeof value !== 'object' || value === null) return value;
  const objects = shapes(schema);
  if (objects.length === 0) {
    const items = itemsOf(schema);
    if (items?.kind !== 'record') return value;
    return Object.fromEntries(Object.entries(value as Obj).map(([k, v]) => [k, schemaKeys(items.item, v, found, at(k))]));
  }
  const bySnake = new Map<string, { key: string; schema: z.ZodType }>();
  for (const shape of objects) for (const [key, s] of Object.entries(shape)) if (!bySnake.has(snakeCase(key))) bySnake.set(snakeCase(key), { key, schema: s });
  const out: Obj = {};
  for (const [k, v] of Object.entries(value as Obj)) {
    const hit = bySnake.get(k) ?? bySnake.get(snakeCase(k));
    // The old spelling is the schema's own camelCase key; a camelCase key the schema never had stays unknown.
    const known = hit !== undefined && (k === snakeCase(hit.key) || k === hit.key);
    if (!known) {
      out[k] = v;
      continue;
    }
    if (k !== snakeCase(k)) {
      found.push({ old: at(k), now: at(snakeCase(k)) });
      // Both spellings given: the snake_case one wins.
      if (snakeCase(k) in (value as Obj)) continue;
    }
    out[hit.key] = schemaKeys(hit.schema, v, found, at(snakeCase(k)));
  }
  return out;
}

/** Every camelCase object key of a schema, so messages can name keys as a file writes them. */
export function camelKeys(schema: z.ZodType, out = new Set<string>(), seen = new Set<z.ZodType>()): Set<string> {
  if (seen.has(schema)) return out;
  seen.add(schema);
  for (const shape of shapes(schema)) {
    for (const [k, s] of Object.entries(shape)) {
      if (k !== snakeCase(k)) out.add(k);
      camelKeys(s, out, seen);
    }
  }
  const items = itemsOf(schema);
  if (items) camelKeys(items.item, out, seen);
  return out;
}

/** `storage.retentionDays: …` → `storage.retention_days: …` for the schema's own keys (data keys stay). */
export function snakeMessage(text: string, keys: ReadonlySet<string>): string {
  return text.replace(/\b[a-z][a-z0-9]*(?:[A-Z][a-z0-9]*)+\b/g, (w) => (keys.has(w) ? snakeCase(w) : w));
}
