/**
 * The wire's one naming style: snake_case keys, like the event contract and the query spec (the
 * exceptions, shapes that are deliberately another system's, are listed in docs/api.md). Code
 * inside the process keeps TypeScript's camelCase; replies are turned into snake_case at the query
 * layer with `snakeKeys`, and config keys are read in snake_case by `src/config`. Imports nothing:
 * `src/schema/replies.ts` and the web use its types.
 */

/** `thresholdMs` → `threshold_ms` as a type (`p99Ms` → `p99_ms`, `shareNow` → `share_now`). */
export type SnakeCase<S extends string> = S extends `${infer H}${infer T}` ? `${H extends Lowercase<H> ? H : `_${Lowercase<H>}`}${SnakeCase<T>}` : S;

/** An object's own keys in snake_case, values untouched (one level: nested shapes are converted where they are built). */
export type SnakeKeys<T> = { [K in keyof T as K extends string ? SnakeCase<K> : K]: T[K] };

/** `thresholdMs` → `threshold_ms`; a key already in snake_case comes back as it is. */
export function snakeCase(key: string): string {
  return key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}

/** A shallow copy of `o` with its keys in snake_case (one level; data-keyed maps inside stay as they are). */
export function snakeKeys<T extends object>(o: T): SnakeKeys<T> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(o)) out[snakeCase(k)] = v;
  return out as SnakeKeys<T>;
}
