/**
 * Golden sample sets: inputs with their expected outputs and the checker that decides whether a
 * model's answer passes. Sets come from YAML (config or a file) or `POST /v1/golden/sets`; the
 * registry keeps them in memory and, when given a file, persists every registered set to it
 * (written to a temp file and renamed, so a crash leaves the old file or the new one).
 *
 * Checkers (the set's default, overridable per sample):
 * - exact: the output deep-equals `expected`;
 * - label_equals: the output's label (the output itself when a string, else its `field`, default
 *   `label`) equals `expected` as text;
 * - contains: the output as text contains `expected` (optionally ignoring case);
 * - regex: the output as text matches the pattern `expected` (with `flags`);
 * - json_schema: the output (parsed when it is a JSON string) validates against the JSON Schema
 *   `expected` (ajv, draft 2020-12 keywords as ajv's default draft-07 set);
 * - numeric_tolerance: |output − expected| ≤ max(abs, rel·|expected|).
 */
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { Ajv } from 'ajv';
import type { ValidateFunction } from 'ajv';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { InferlensError, decode } from '../schema/index.ts';

/**
 * Bounds on a golden set upload, checked before anything is kept (an unbounded set blocked the
 * event loop 37.7 s with 30,000 keys and made restarts slow; one nested 2,000 deep broke every
 * later save). A set of 1,000 samples with inputs and schemas of a few dozen fields each fits.
 */
export const GOLDEN_LIMITS = {
  /** Largest body of `POST /v1/golden/sets`, bytes. */
  maxBytes: 1 << 20,
  /** Deepest nesting of maps and lists (the set itself is depth 1). */
  maxDepth: 32,
  /** Most entries in one map or list. */
  maxEntries: 1000,
  /** Most values in one upload in all. */
  maxNodes: 100_000,
} as const;

/**
 * Checks a plain value (parsed JSON or YAML) against GOLDEN_LIMITS; throws invalid_argument with
 * the path of the first value past a limit. Walks with an explicit stack, so depth costs nothing.
 */
export function checkGoldenBounds(value: unknown, what = 'golden set'): void {
  let nodes = 0;
  const stack: { v: unknown; path: string; depth: number }[] = [{ v: value, path: '', depth: 1 }];
  const bad = (path: string, message: string) =>
    new InferlensError('invalid_argument', `${what}: ${path || '(root)'}: ${message}`, { issues: [{ path, message }] });
  while (stack.length > 0) {
    const { v, path, depth } = stack.pop()!;
    if (++nodes > GOLDEN_LIMITS.maxNodes) throw bad(path, `more than ${GOLDEN_LIMITS.maxNodes} values in all`);
    if (v === null || typeof v !== 'object') continue;
    if (depth > GOLDEN_LIMITS.maxDepth) throw bad(path, `nested deeper than ${GOLDEN_LIMITS.maxDepth} levels`);
    const entries = Array.isArray(v) ? v.map((x, i) => [String(i), x] as const) : Object.entries(v);
    if (entries.length > GOLDEN_LIMITS.maxEntries) throw bad(path, `more than ${GOLDEN_LIMITS.maxEntries} entries`);
    for (const [k, x] of entries) stack.push({ v: x, path: path ? `${path}.${k}` : k, depth: depth + 1 });
  }
}

export const CHECKER_KINDS = ['exact', 'label_equals', 'contains', 'regex', 'json_schema', 'numeric_tolerance'] as const;

const CheckerObjectSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('exact') }).strict(),
  z.object({ kind: z.literal('label_equals'), field: z.string().min(1).max(64).default('label') }).strict(),
  z.object({ kind: z.literal('contains'), ignore_case: z.boolean().default(false) }).strict(),
  z
    .object({
      kind: z.literal('regex'),
      flags: z
        .string()
        .regex(/^[imsu]*$/, { error: 'flags may use i, m, s, u' })
        .default(''),
    })
    .strict(),
  z.object({ kind: z.literal('json_schema') }).strict(),
  z.object({ kind: z.literal('numeric_tolerance'), abs: z.number().min(0).default(0), rel: z.number().min(0).default(0) }).strict(),
]);

/** A checker: its kind alone (`exact`) or an object with options (`{ kind: regex, flags: i }`). */
export const CheckerSchema = z.preprocess((v) => (typeof v === 'string' ? { kind: v } : v), CheckerObjectSchema);
export type Checker = z.infer<typeof CheckerObjectSchema>;

export const GoldenSampleSchema = z
  .object({
    id: z.string().regex(/^[\w.:-]{1,128}$/, { error: 'letters, digits, _ . : - (1–128)' }),
    input: z.unknown(),
    expected: z.unknown(),
    checker: CheckerSchema.optional(),
  })
  .strict();

export const GoldenSetSchema = z
  .object({
    name: z.string().regex(/^[\w.-]{1,64}$/, { error: 'letters, digits, _ . - (1–64)' }),
    /** Only probe targets of this model run the set; absent: every target. */
    model: z.string().min(1).max(256).optional(),
    checker: CheckerSchema.default({ kind: 'exact' }),
    samples: z.array(GoldenSampleSchema).min(1).max(1000),
  })
  .strict()
  .superRefine((set, ctx) => {
    const seen = new Set<string>();
    set.samples.forEach((s, i) => {
      if (seen.has(s.id)) ctx.addIssue({ code: 'custom', path: ['samples', i, 'id'], message: `duplicate id "${s.id}"` });
      seen.add(s.id);
    });
  });
export type GoldenSetInput = z.input<typeof GoldenSetSchema>;
export type GoldenSet = z.infer<typeof GoldenSetSchema>;

export interface CheckResult {
  pass: boolean;
  /** Why it failed (or could not be checked), for the results view. */
  reason?: string;
}

/** A sample ready to check: the checker compiled once (regex, JSON schema). */
export interface CompiledSample {
  id: string;
  input: unknown;
  expected: unknown;
  checker: Checker;
  check(output: unknown): CheckResult;
}

export interface CompiledSet {
  name: string;
  model?: string;
  samples: CompiledSample[];
  /** The validated definition (what is persisted). */
  definition: GoldenSet;
}

const ajv = new Ajv({ allErrors: false, strict: false });

const asText = (v: unknown): string => (typeof v === 'string' ? v : (JSON.stringify(v) ?? ''));
const toNumber = (v: unknown): number => (typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' ? Number(v) : NaN);

/** Compiles one checker against its expected value; throws invalid_argument (with `path`) when it cannot. */
export function compileChecker(checker: Checker, expected: unknown, path: string): (output: unknown) => CheckResult {
  const bad = (message: string) => new InferlensError('invalid_argument', `${path}: ${message}`, { issues: [{ path, message }] });
  switch (checker.kind) {
    case 'exact':
      return (out) => (isDeepStrictEqual(out, expected) ? { pass: true } : { pass: false, reason: `expected ${asText(expected)}, got ${asText(out)}` });
    case 'label_equals': {
      const want = asText(expected);
      return (out) => {
        const label = typeof out === 'string' ? out : out !== null && typeof out === 'object' ? (out as Record<string, unknown>)[checker.field] : out;
        if (label == null) return { pass: false, reason: `no ${checker.field} in the output` };
        const got = asText(label);
        return got === want ? { pass: true } : { pass: false, reason: `expected label ${want}, got ${got}` };
      };
    }
    case 'contains': {
      if (typeof expected !== 'string') throw bad('contains needs a string expected value');
      const want = checker.ignore_case ? expected.toLowerCase() : expected;
      return (out) => {
        const text = checker.ignore_case ? asText(out).toLowerCase() : asText(out);
        return text.includes(want) ? { pass: true } : { pass: false, reason: `output does not contain ${JSON.stringify(expected)}` };
      };
    }
    case 'regex': {
      if (typeof expected !== 'string') throw bad('regex needs the pattern as a string expected value');
      let re: RegExp;
      try {
        re = new RegExp(expected, checker.flags);
      } catch (e) {
        throw bad(`invalid regular expression: ${(e as Error).message}`);
      }
      return (out) => (re.test(asText(out)) ? { pass: true } : { pass: false, reason: `output does not match /${expected}/${checker.flags}` });
    }
    case 'json_schema': {
      if (expected === null || typeof expected !== 'object') throw bad('json_schema needs the schema (an object) as the expected value');
      let validate: ValidateFunction;
      try {
        validate = ajv.compile(expected as Record<string, unknown>);
      } catch (e) {
        throw bad(`invalid JSON schema: ${(e as Error).message}`);
      }
      return (out) => {
        let value = out;
        if (typeof out === 'string') {
          try {
            value = JSON.parse(out);
          } catch {
            return { pass: false, reason: 'output is not valid JSON' };
          }
        }
        if (validate(value)) return { pass: true };
        const err = validate.errors?.[0];
        return { pass: false, reason: `schema: ${err ? `${err.instancePath || '(root)'} ${err.message ?? ''}`.trim() : 'invalid'}` };
      };
    }
    case 'numeric_tolerance': {
      const want = toNumber(expected);
      if (!Number.isFinite(want)) throw bad('numeric_tolerance needs a number expected value');
      const tol = Math.max(checker.abs, checker.rel * Math.abs(want));
      return (out) => {
        const got = toNumber(out);
        if (!Number.isFinite(got)) return { pass: false, reason: `output ${asText(out)} is not a number` };
        // e.g. expected 10, abs 0.5, rel 0.1 → tolerance max(0.5, 1) = 1: 10.9 passes, 11.2 fails.
        return Math.abs(got - want) <= tol ? { pass: true } : { pass: false, reason: `|${got} − ${want}| > ${tol}` };
      };
    }
  }
}

/** Validates and compiles a set; every problem is an invalid_argument with its field path. */
export function compileGoldenSet(input: unknown): CompiledSet {
  checkGoldenBounds(input);
  const def = decode(GoldenSetSchema, input, 'golden set');
  const samples = def.samples.map((s, i): CompiledSample => {
    const checker = s.checker ?? def.checker;
    const check = compileChecker(checker, s.expected, `samples.${i}.expected`);
    return { id: s.id, input: s.input, expected: s.expected, checker, check };
  });
  const out: CompiledSet = { name: def.name, samples, definition: def };
  if (def.model !== undefined) out.model = def.model;
  return out;
}

/** The raw set definitions in a parsed document: a list of sets, one set, or `{ sets: [...] }`. */
export function goldenDocs(doc: unknown): unknown[] {
  if (doc == null) return [];
  const list = Array.isArray(doc) ? doc : typeof doc === 'object' && 'sets' in doc ? (doc as { sets: unknown }).sets : [doc];
  if (!Array.isArray(list)) throw new InferlensError('invalid_argument', 'golden sets: expected a list of sets or { sets: [...] }');
  return list;
}

/** The raw set definitions in YAML text (config files, files written by earlier versions). */
export function goldenYamlDocs(text: string): unknown[] {
  let doc: unknown;
  try {
    doc = parseYaml(text, { maxAliasCount: 100 });
  } catch (e) {
    throw new InferlensError('invalid_argument', `golden sets: not valid YAML: ${(e as Error).message}`, { cause: e });
  }
  return goldenDocs(doc);
}

/** Reads and compiles sets from YAML text. */
export function parseGoldenYaml(text: string): CompiledSet[] {
  return goldenYamlDocs(text).map(compileGoldenSet);
}

export interface GoldenRegistry {
  list(): CompiledSet[];
  get(name: string): CompiledSet | undefined;
  /** Validates, replaces any set of the same name, and persists when a file is configured. */
  register(input: unknown): CompiledSet;
  /**
   * All or none: validates every set, persists them together, and only then makes them visible;
   * a set that fails (or a save that fails) leaves the registry and its file as they were.
   */
  registerAll(inputs: readonly unknown[]): CompiledSet[];
  /** Persisted sets that could not be loaded at start (skipped), each with why. */
  problems: readonly string[];
}

export interface GoldenRegistryOptions {
  /** Sets known at start (config). */
  sets?: readonly CompiledSet[];
  /**
   * File of sets registered at runtime: loaded at start, rewritten on each register. Written as
   * JSON (which is YAML too: files of earlier versions, in YAML, still load), read with JSON.parse.
   */
  file?: string;
}

/** Most sets one registry holds. */
export const MAX_GOLDEN_SETS = 200;

/** The persisted file's sets: JSON (this version) or YAML (earlier versions). */
function readPersisted(text: string): unknown[] {
  try {
    return goldenDocs(JSON.parse(text));
  } catch {
    return goldenYamlDocs(text);
  }
}

export function createGoldenRegistry(options: GoldenRegistryOptions = {}): GoldenRegistry {
  const sets = new Map<string, CompiledSet>();
  const persisted = new Map<string, GoldenSet>();
  const problems: string[] = [];
  for (const s of options.sets ?? []) sets.set(s.name, s);
  if (options.file && existsSync(options.file)) {
    // One bad persisted set is skipped (and reported), never a server that does not start.
    let defs: unknown[] = [];
    try {
      defs = readPersisted(readFileSync(options.file, 'utf8'));
    } catch (e) {
      problems.push(`${options.file}: ${(e as Error).message}`);
    }
    defs.forEach((def, i) => {
      try {
        const s = compileGoldenSet(def);
        sets.set(s.name, s);
        persisted.set(s.name, s.definition);
      } catch (e) {
        problems.push(`${options.file}: set ${i}: ${(e as Error).message}`);
      }
    });
  }
  const save = (defs: readonly GoldenSet[]) => {
    if (!options.file) return;
    mkdirSync(dirname(options.file), { recursive: true });
    const tmp = `${options.file}.tmp-${process.pid}`;
    try {
      writeFileSync(tmp, JSON.stringify({ sets: defs }, null, 1));
      renameSync(tmp, options.file);
    } catch (e) {
      rmSync(tmp, { force: true });
      throw new InferlensError('unavailable', `the golden sets could not be saved (${(e as Error).message}); nothing was changed: retry later`, {
        cause: e,
        retryAfterS: 5,
      });
    }
  };
  const registerAll = (inputs: readonly unknown[]): CompiledSet[] => {
    const compiled = inputs.map(compileGoldenSet);
    const names = new Set([...sets.keys(), ...compiled.map((s) => s.name)]);
    if (names.size > MAX_GOLDEN_SETS) throw new InferlensError('invalid_argument', `at most ${MAX_GOLDEN_SETS} golden sets: replace or remove one first`);
    const next = new Map(persisted);
    for (const s of compiled) next.set(s.name, s.definition);
    save([...next.values()]);
    for (const s of compiled) {
      sets.set(s.name, s);
      persisted.set(s.name, s.definition);
    }
    return compiled;
  };
  return {
    list: () => [...sets.values()].sort((a, b) => a.name.localeCompare(b.name)),
    get: (name) => sets.get(name),
    register: (input) => registerAll([input])[0]!,
    registerAll,
    problems,
  };
}
