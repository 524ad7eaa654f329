/** The configuration of one scrape target, validated once at start-up (the config module embeds it). */
import { z } from 'zod';
import { ENGINES } from './engines.ts';

const LabelValue = z.string().max(256);

export const ScrapeTargetSchema = z
  .object({
    /** The `/metrics` URL, http or https. */
    url: z.url({ protocol: /^https?$/, error: 'expected an http(s) URL such as http://10.0.0.5:8000/metrics' }),
    /** How often to scrape. Default 15 s. */
    intervalMs: z.number().int().min(100).max(3_600_000).default(15_000),
    /** Give up on one scrape after this long. Default 10 s; must not exceed the interval. */
    timeoutMs: z.number().int().min(10).max(600_000).default(10_000),
    /** `node` is required; `replica` and `pool` fill those sample fields; any other label is added to every sample. */
    labels: z
      .object({ node: z.string().min(1).max(256), replica: LabelValue.optional(), pool: LabelValue.optional() })
      .catchall(LabelValue)
      .refine((l) => Object.keys(l).every((k) => /^[a-zA-Z_][a-zA-Z0-9_]{0,63}$/.test(k)), { error: 'label names must match [a-zA-Z_][a-zA-Z0-9_]{0,63}' }),
    /** Which engine's names to map; 'auto' classifies each metric family by its name. */
    engine: z.enum(['auto', ...ENGINES]).default('auto'),
  })
  .strict()
  .refine((t) => t.timeoutMs <= t.intervalMs, { error: 'timeoutMs must not exceed intervalMs', path: ['timeoutMs'] });

/** A validated target, defaults filled in. */
export type ScrapeTarget = z.output<typeof ScrapeTargetSchema>;
/** A target as written in config: defaults may be left out. */
export type ScrapeTargetInput = z.input<typeof ScrapeTargetSchema>;
