/**
 * Silences, as in Alertmanager: matchers and a time span; an alert whose labels match every
 * matcher of an active silence is not notified (and proposes no action). Created and expired
 * through the API; kept in memory, bounded, and written to a JSON file when one is given so they
 * survive a restart.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { z } from 'zod';
import { InferlensError, zodIssues } from '../schema/index.ts';
import type { Clock } from './clock.ts';
import { compileMatchers, parseMatcher } from './labels.ts';
import type { LabelPredicate, Labels, Matcher } from './labels.ts';

export interface Silence {
  id: string;
  matchers: Matcher[];
  startsAt: string;
  endsAt: string;
  createdBy: string;
  comment: string;
  createdAt: string;
}

export type SilenceState = 'pending' | 'active' | 'expired';

const rfc3339 = z.string().refine((s) => Number.isFinite(Date.parse(s)), { error: 'expected an RFC 3339 timestamp' });
const MatcherInput = z.union([
  z.string().min(1).max(1024),
  z
    .object({
      name: z.string().regex(/^[a-zA-Z_][a-zA-Z0-9_]*$/),
      value: z.string().max(1024),
      isRegex: z.boolean().default(false),
      isEqual: z.boolean().default(true),
    })
    .strict(),
]);

/** The body of `POST /v1/silences`: matchers as `name="v"` strings or Alertmanager objects; endsAt or duration_s. */
export const SilenceInputSchema = z
  .object({
    matchers: z.array(MatcherInput).min(1).max(32),
    startsAt: rfc3339.optional(),
    endsAt: rfc3339.optional(),
    /** Instead of endsAt: seconds from startsAt. */
    duration_s: z
      .number()
      .positive()
      .max(365 * 86_400)
      .optional(),
    createdBy: z.string().min(1).max(256),
    comment: z.string().max(4096).default(''),
  })
  .strict();

export interface Silences {
  create(input: unknown): Silence;
  /** Ends a silence now (Alertmanager's expire); not_found when unknown. */
  expire(id: string): Silence;
  list(): (Silence & { state: SilenceState })[];
  /** Ids of the active silences that match these labels. */
  matching(labels: Labels, nowMs: number): string[];
}

export interface SilencesOptions {
  clock: Clock;
  /** JSON file to keep silences across restarts. */
  file?: string;
  /** Most silences kept; expired ones go first. */
  max?: number;
}

export function createSilences(o: SilencesOptions): Silences {
  const max = o.max ?? 1000;
  const items = new Map<string, { silence: Silence; test: LabelPredicate; fromMs: number; toMs: number }>();
  const add = (s: Silence) => items.set(s.id, { silence: s, test: compileMatchers(s.matchers), fromMs: Date.parse(s.startsAt), toMs: Date.parse(s.endsAt) });
  const state = (fromMs: number, toMs: number, nowMs: number): SilenceState => (nowMs < fromMs ? 'pending' : nowMs < toMs ? 'active' : 'expired');

  if (o.file) {
    try {
      for (const s of JSON.parse(readFileSync(o.file, 'utf8')) as Silence[]) add(s);
    } catch {
      // No file yet (first start) or unreadable: start empty; the next change rewrites it.
    }
  }
  const save = () => {
    if (!o.file) return;
    const tmp = `${o.file}.tmp`;
    writeFileSync(tmp, JSON.stringify([...items.values()].map((i) => i.silence)));
    renameSync(tmp, o.file);
  };

  return {
    create(input) {
      const r = SilenceInputSchema.safeParse(input);
      if (!r.success) {
        const issues = zodIssues(r.error);
        throw new InferlensError('invalid_argument', `invalid silence: ${issues.map((i) => `${i.path || '(body)'}: ${i.message}`).join('; ')}`, { issues });
      }
      const nowMs = o.clock.now();
      const matchers = r.data.matchers.map((m) => (typeof m === 'string' ? parseMatcher(m) : m));
      const fromMs = r.data.startsAt ? Date.parse(r.data.startsAt) : nowMs;
      const toMs = r.data.endsAt ? Date.parse(r.data.endsAt) : r.data.duration_s !== undefined ? fromMs + r.data.duration_s * 1000 : NaN;
      if (!Number.isFinite(toMs)) throw new InferlensError('invalid_argument', 'a silence needs endsAt or duration_s');
      if (toMs <= fromMs) throw new InferlensError('invalid_argument', 'endsAt must be after startsAt');
      if (toMs <= nowMs) throw new InferlensError('invalid_argument', 'endsAt is in the past: nothing would be silenced');
      if (items.size >= max) {
        const expired = [...items.values()].filter((i) => i.toMs <= nowMs).sort((a, b) => a.toMs - b.toMs);
        if (expired[0]) items.delete(expired[0].silence.id);
        else throw new InferlensError('resource_exhausted', `${max} silences are active: expire some first`);
      }
      const silence: Silence = {
        id: randomUUID(),
        matchers,
        startsAt: new Date(fromMs).toISOString(),
        endsAt: new Date(toMs).toISOString(),
        createdBy: r.data.createdBy,
        comment: r.data.comment,
        createdAt: new Date(nowMs).toISOString(),
      };
      add(silence);
      save();
      return silence;
    },
    expire(id) {
      const i = items.get(id);
      if (!i) throw new InferlensError('not_found', `no silence ${id}: GET /v1/silences lists them`);
      const nowMs = o.clock.now();
      if (i.toMs > nowMs) {
        const silence = { ...i.silence, endsAt: new Date(Math.max(nowMs, i.fromMs)).toISOString() };
        add(silence);
        save();
        return silence;
      }
      return i.silence;
    },
    list() {
      const nowMs = o.clock.now();
      return [...items.values()].map((i) => ({ ...i.silence, state: state(i.fromMs, i.toMs, nowMs) }));
    },
    matching(labels, nowMs) {
      const out: string[] = [];
      for (const i of items.values()) if (state(i.fromMs, i.toMs, nowMs) === 'active' && i.test(labels)) out.push(i.silence.id);
      return out;
    },
  };
}
