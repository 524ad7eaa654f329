/**
 * The columns a store's SQL may name: what the event contract defines. Both backends build SQL
 * from these identifiers only, so a name that is not here is a programming error, never input.
 */
import { DIMENSIONS, NUMERIC_FIELDS } from '../schema/index.ts';

const IDENT_OK: ReadonlySet<string> = new Set<string>([
  ...DIMENSIONS,
  ...NUMERIC_FIELDS,
  'status',
  'error_type',
  'label',
  'finish_reason',
  'request_id',
  'empty',
  'refused',
  'format_ok',
  'probe',
]);

/** Guards an identifier against the closed set; throws on anything else (a programming error). */
export function ident(name: string): string {
  if (!IDENT_OK.has(name)) throw new Error(`not a known column: ${name}`);
  return name;
}
