/**
 * The one typed configuration. Sources, lowest first: defaults < YAML file < INFERLENS_* env <
 * flags. Validated once at start-up; every problem is listed. `process.env` is read only here
 * (and only through the `env` argument the CLI passes in).
 */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { hostname } from 'node:os';
import { ScrapeTargetSchema } from '../ingest/index.ts';
import { CapturePolicySchema } from '../pipeline/index.ts';
import { MODEL_TYPES, ProbeScheduleSchema } from '../quality/index.ts';
import { DEFAULT_LOW_CONFIDENCE, InferlensError, KeyRecordSchema, parseDurationMs, zodIssues } from '../schema/index.ts';
import { camelKeys, schemaKeys, snakeMessage } from './config-keys.ts';
import type { KeyDeprecation } from './config-keys.ts';

const MiB = 1024 * 1024;
const httpUrl = z.url({ protocol: /^https?$/ });
const delivery = {
  timeoutMs: z.number().int().min(100).max(120_000).default(10_000),
  maxQueue: z.number().int().min(1).max(100_000).default(1000),
  maxAttempts: z.number().int().min(1).max(20).default(5),
};

const AlertingSchema = z
  .object({
    enabled: z.boolean().default(true),
    /** Load the built-in rule pack (rules/default.yaml). */
    defaultRules: z.boolean().default(true),
    ruleFiles: z.array(z.string().min(1)).max(100).default([]),
    groupBy: z
      .array(z.string().regex(/^[a-zA-Z_][a-zA-Z0-9_]*$/))
      .max(10)
      .default(['model', 'pool']),
    groupWaitMs: z.number().int().min(0).default(30_000),
    groupIntervalMs: z.number().int().min(1000).default(300_000),
    repeatIntervalMs: z.number().int().min(60_000).default(14_400_000),
    resendDelayMs: z.number().int().min(1000).default(60_000),
    externalUrl: httpUrl.optional(),
    inhibitRules: z
      .array(
        z.object({ source_matchers: z.array(z.string()).min(1), target_matchers: z.array(z.string()).min(1), equal: z.array(z.string()).default([]) }).strict(),
      )
      .max(100)
      .optional(),
    receivers: z
      .array(
        z.discriminatedUnion('type', [
          z
            .object({
              type: z.literal('webhook'),
              name: z.string().min(1).max(64),
              url: httpUrl,
              secret: z.string().min(16).optional(),
              tiers: z
                .array(z.enum(['page', 'ticket']))
                .min(1)
                .default(['page', 'ticket']),
              ...delivery,
            })
            .strict(),
          z.object({ type: z.literal('alertmanager'), name: z.string().min(1).max(64).default('alertmanager'), url: httpUrl, ...delivery }).strict(),
        ]),
      )
      .max(20)
      .default([]),
    actions: z
      .object({
        /** dry_run (default): actions are proposed and audited, never sent. */
        mode: z.enum(['dry_run', 'approval', 'auto']).default('dry_run'),
        url: httpUrl.optional(),
        endpoints: z
          .partialRecord(
            z.enum(['scale_out', 'switch_route', 'rate_limit', 'pause_canary', 'rollback', 'adjust_batch']),
            z
              .object({
                url: httpUrl,
                body: z.enum(['envelope', 'params']).default('envelope'),
                params: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])).optional(),
                headers: z.record(z.string(), z.string()).optional(),
              })
              .strict(),
          )
          .default({}),
        timeoutMs: z.number().int().min(100).max(60_000).default(10_000),
      })
      .strict()
      .prefault({}),
  })
  .strict();

export const ConfigSchema = z
  .object({
    server: z
      .object({
        host: z.string().default('127.0.0.1'),
        port: z.number().int().min(0).max(65535).default(7070),
        maxBodyBytes: z
          .number()
          .int()
          .min(1024)
          .max(1024 * MiB)
          .default(16 * MiB),
        /**
         * API keys as stored records (hashes, never keys): `inferlens keys create` writes them to
         * the keys file; records copied here work the same. No key at all: the server is open,
         * and refuses to listen beyond loopback unless `insecure`.
         */
        keys: z.array(KeyRecordSchema).max(10_000).default([]),
        /** The keys file, re-read when it changes (default: `<dataDir>/keys.json`). */
        keysFile: z.string().min(1).optional(),
        /** Listen on a non-loopback address without API keys (anyone who can reach it can do anything). */
        insecure: z.boolean().default(false),
        /**
         * Host names the server answers to (a page on a rebinding DNS name is refused). Default:
         * loopback names when bound to loopback, any name otherwise.
         */
        allowedHosts: z.array(z.string().min(1).max(253)).max(100).optional(),
        /** How long a dashboard sign-in lasts. */
        sessionTtlMs: z
          .number()
          .int()
          .min(60_000)
          .max(30 * 86_400_000)
          .default(12 * 3_600_000),
      })
      .strict()
      .prefault({}),
    storage: z
      .object({
        /** duckdb: one embedded file under dataDir; clickhouse: a server or cluster (storage.clickhouse). */
        backend: z.enum(['duckdb', 'clickhouse']).default('duckdb'),
        /** Folder for the database file (and local files); ':memory:' keeps everything in memory (tests). */
        dataDir: z.string().default('./data'),
        retentionDays: z.number().positive().max(3650).default(7),
        retentionCheckMs: z.number().int().min(1000).default(3_600_000),
        /** How often closed minutes are rolled up, and how long after its end a minute is. */
        rollupIntervalMs: z.number().int().min(1000).default(15_000),
        rollupLagMs: z.number().int().min(0).max(3_600_000).default(60_000),
        memoryLimit: z
          .string()
          .regex(/^\d+(\.\d+)?\s*(KB|MB|GB|KiB|MiB|GiB)$/i)
          .default('1GB'),
        threads: z.number().int().min(1).max(256).optional(),
        /** The ClickHouse backend (docs/clickhouse.md): a server over HTTP, or chdb in-process for local use. */
        clickhouse: z
          .object({
            /** HTTP(S) URL of a server, or of a load balancer in front of a cluster. */
            url: httpUrl.optional(),
            /** Instead of a URL: a folder for ClickHouse in-process (the chdb package; local use, tests). */
            chdbPath: z.string().min(1).optional(),
            database: z
              .string()
              .regex(/^[A-Za-z_][A-Za-z0-9_]{0,63}$/, { error: 'expected letters, digits and _' })
              .default('inferlens'),
            username: z.string().min(1).default('default'),
            /** Only from the environment: INFERLENS_CLICKHOUSE_PASSWORD. */
            password: z.string().optional(),
            /** Cluster name (remote_servers): replicated tables with Distributed ones in front (docs/clickhouse.md). */
            cluster: z
              .string()
              .regex(/^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$/, { error: 'expected letters, digits, _ . and -' })
              .optional(),
            /** On a cluster: replicas that must hold a part before an insert is acknowledged ('auto': a majority). */
            insertQuorum: z.union([z.literal('auto'), z.number().int().min(1).max(16)]).default('auto'),
            requestTimeoutMs: z.number().int().min(1000).max(600_000).default(30_000),
          })
          .strict()
          .prefault({}),
      })
      .strict()
      .superRefine((s, ctx) => {
        if (s.backend !== 'clickhouse') {
          // Settings of the other backend would be read by nothing: a URL without the backend set
          // would silently store in a DuckDB file.
          for (const key of ['url', 'chdbPath', 'cluster'] as const)
            if (s.clickhouse[key] !== undefined)
              ctx.addIssue({
                code: 'custom',
                path: ['clickhouse', key],
                message: `storage.clickhouse.${key} is read only with storage.backend clickhouse (the backend is ${s.backend})`,
              });
          return;
        }
        if (s.threads !== undefined)
          ctx.addIssue({ code: 'custom', path: ['threads'], message: 'storage.threads sets DuckDB threads: it is read only with storage.backend duckdb' });
        const { url, chdbPath } = s.clickhouse;
        if ((url === undefined) === (chdbPath === undefined))
          ctx.addIssue({
            code: 'custom',
            path: ['clickhouse'],
            message: 'storage.backend clickhouse needs exactly one of storage.clickhouse.url (a server) or storage.clickhouse.chdb_path (in-process)',
          });
        if (chdbPath !== undefined && s.clickhouse.cluster !== undefined)
          ctx.addIssue({
            code: 'custom',
            path: ['clickhouse', 'cluster'],
            message: 'a cluster needs storage.clickhouse.url: the in-process engine is one node',
          });
      })
      .prefault({}),
    /**
     * Which part of inferlens this process runs: all (default); ingest (receivers and the write
     * path); query (reads, analyses, the dashboard); alerting (rule evaluation, notifications,
     * probes). Every role but all needs storage.backend clickhouse, which they share.
     */
    role: z.enum(['all', 'ingest', 'query', 'alerting']).default('all'),
    pipeline: z
      .object({
        cardinalityCap: z.number().int().min(1).max(1_000_000).default(1000),
        maxQueueRows: z.number().int().min(1000).default(200_000),
        /** Longest expected wait of a queued row before writes get 429 (well under the SDK's 10 s timeout). */
        maxQueueWaitMs: z.number().int().min(100).max(60_000).default(3000),
        maxBatchRows: z.number().int().min(1).default(50_000),
      })
      .strict()
      .prefault({}),
    /** Which request/response payloads are kept as samples (src/pipeline/capture.ts). */
    capture: CapturePolicySchema.prefault({}),
    /** This node's name in resource samples (default: the host name). */
    node: z.string().min(1).max(256).default(hostname()),
    scrape: z
      .object({ targets: z.array(ScrapeTargetSchema).max(1000).default([]) })
      .strict()
      .prefault({}),
    collectors: z
      .object({
        host: z
          .object({ enabled: z.boolean().default(true), intervalMs: z.number().int().min(1000).default(15_000) })
          .strict()
          .prefault({}),
        gpu: z
          .object({
            enabled: z.boolean().default(true),
            intervalMs: z.number().int().min(1000).default(15_000),
            /** Scrape a DCGM exporter instead of running nvidia-smi. */
            dcgmUrl: z.url({ protocol: /^https?$/ }).optional(),
          })
          .strict()
          .prefault({}),
      })
      .strict()
      .prefault({}),
    alerting: AlertingSchema.prefault({}),
    quality: z
      .object({
        /** Declared model types (otherwise inferred from the fields present). */
        modelTypes: z.record(z.string(), z.enum(MODEL_TYPES)).default({}),
        /** Confidence below this is low: for sample capture, the quality table and the rules (one cut-off). */
        lowConfidence: z.number().gt(0).lt(1).default(DEFAULT_LOW_CONFIDENCE),
        /** Golden set YAML files loaded at start (sets registered through the API persist under the data dir). */
        goldenFiles: z.array(z.string()).default([]),
        /** Probe schedule: which inference endpoints to call with the golden sets. */
        probes: ProbeScheduleSchema.prefault({}),
      })
      .strict()
      .prefault({}),
    /**
     * Prices for the Cost view and `POST /v1/cost` (src/query/cost.ts). Without any, money figures
     * are null and the view names these settings.
     */
    cost: z
      .object({
        /** ISO 4217 code the prices are in. */
        currency: z
          .string()
          .regex(/^[A-Z]{3}$/, { error: 'expected an ISO 4217 code such as USD or EUR' })
          .default('USD'),
        /** Price of one GPU-hour; the first entry whose pool and gpuModel (the GPU's `gpu_model` label) match; neither: every GPU. */
        gpuHour: z
          .array(
            z
              .object({
                pool: z.string().min(1).max(256).optional(),
                gpuModel: z.string().min(1).max(256).optional(),
                price: z.number().nonnegative().finite(),
              })
              .strict(),
          )
          .max(1000)
          .default([]),
        /** Hosted models: price per 1 M input and output tokens, by model name. */
        tokens: z
          .record(
            z.string().min(1).max(256),
            z.object({ input: z.number().nonnegative().finite().default(0), output: z.number().nonnegative().finite().default(0) }).strict(),
          )
          .default({}),
      })
      .strict()
      .prefault({}),
    /**
     * The periodic review delivered on a schedule: each entry sends the review of the `period`
     * ending at every multiple of `every` since the epoch, plus `offset` (UTC; `every: 7d` with
     * `offset: 4d` is Mondays 00:00 as 1970-01-01 was a Thursday), as Markdown to the named webhook
     * receivers of `alerting.receivers`.
     */
    reports: z
      .object({
        schedules: z
          .array(
            z
              .object({
                name: z.string().min(1).max(64),
                period: z.string().refine(
                  (s) => {
                    const ms = parseDurationMs(s);
                    return ms !== undefined && ms >= 3_600_000 && ms <= 90 * 86_400_000;
                  },
                  { error: 'expected a period between 1h and 90d such as 24h or 7d' },
                ),
                every: z.string().refine(
                  (s) => {
                    const ms = parseDurationMs(s);
                    return ms !== undefined && ms >= 3_600_000;
                  },
                  { error: 'expected a duration of at least 1h such as 24h or 7d' },
                ),
                offset: z
                  .string()
                  .refine((s) => parseDurationMs(s) !== undefined, { error: 'expected a duration such as 0s, 9h or 4d' })
                  .default('0s'),
                receivers: z.array(z.string().min(1).max(64)).min(1).max(20),
              })
              .strict(),
          )
          .max(20)
          .default([]),
      })
      .strict()
      .prefault({}),
    log: z
      .object({ level: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info') })
      .strict()
      .prefault({}),
  })
  .strict()
  .superRefine((c, ctx) => {
    const webhooks = new Set(c.alerting.receivers.filter((r) => r.type === 'webhook').map((r) => r.name));
    c.reports.schedules.forEach((sch, i) =>
      sch.receivers.forEach((name, j) => {
        if (!webhooks.has(name))
          ctx.addIssue({
            code: 'custom',
            path: ['reports', 'schedules', i, 'receivers', j],
            message: `no webhook receiver "${name}" in alerting.receivers (${[...webhooks].join(', ') || 'none configured'})`,
          });
      }),
    );
    if (c.role !== 'all' && c.storage.backend !== 'clickhouse')
      ctx.addIssue({
        code: 'custom',
        path: ['role'],
        message: `role ${c.role} needs storage.backend clickhouse: a DuckDB file belongs to one process, so it runs as role all`,
      });
  });

export type Config = z.infer<typeof ConfigSchema>;
export type ConfigInput = z.input<typeof ConfigSchema>;

/** INFERLENS_* variables and the config path each one sets. */
export const ENV_VARS: Record<string, { path: string[]; type: 'string' | 'number' | 'list' }> = {
  INFERLENS_HOST: { path: ['server', 'host'], type: 'string' },
  INFERLENS_PORT: { path: ['server', 'port'], type: 'number' },
  INFERLENS_MAX_BODY_BYTES: { path: ['server', 'maxBodyBytes'], type: 'number' },
  INFERLENS_KEYS_FILE: { path: ['server', 'keysFile'], type: 'string' },
  INFERLENS_DATA: { path: ['storage', 'dataDir'], type: 'string' },
  INFERLENS_RETENTION_DAYS: { path: ['storage', 'retentionDays'], type: 'number' },
  INFERLENS_MEMORY_LIMIT: { path: ['storage', 'memoryLimit'], type: 'string' },
  INFERLENS_CARDINALITY_CAP: { path: ['pipeline', 'cardinalityCap'], type: 'number' },
  INFERLENS_LOG_LEVEL: { path: ['log', 'level'], type: 'string' },
  INFERLENS_ALERT_RULES: { path: ['alerting', 'ruleFiles'], type: 'list' },
  INFERLENS_ACTIONS_MODE: { path: ['alerting', 'actions', 'mode'], type: 'string' },
  INFERLENS_ROLE: { path: ['role'], type: 'string' },
  INFERLENS_STORAGE_BACKEND: { path: ['storage', 'backend'], type: 'string' },
  INFERLENS_CLICKHOUSE_URL: { path: ['storage', 'clickhouse', 'url'], type: 'string' },
  INFERLENS_CLICKHOUSE_CHDB_PATH: { path: ['storage', 'clickhouse', 'chdbPath'], type: 'string' },
  INFERLENS_CLICKHOUSE_DATABASE: { path: ['storage', 'clickhouse', 'database'], type: 'string' },
  INFERLENS_CLICKHOUSE_USER: { path: ['storage', 'clickhouse', 'username'], type: 'string' },
  INFERLENS_CLICKHOUSE_PASSWORD: { path: ['storage', 'clickhouse', 'password'], type: 'string' },
  INFERLENS_CLICKHOUSE_CLUSTER: { path: ['storage', 'clickhouse', 'cluster'], type: 'string' },
};

type Obj = Record<string, unknown>;

function setPath(obj: Obj, path: readonly string[], value: unknown) {
  let cur = obj;
  for (const k of path.slice(0, -1)) {
    if (typeof cur[k] !== 'object' || cur[k] === null) cur[k] = {};
    cur = cur[k] as Obj;
  }
  cur[path[path.length - 1]!] = value;
}

function merge(base: Obj, over: Obj): Obj {
  const out: Obj = { ...base };
  for (const [k, v] of Object.entries(over)) {
    out[k] = typeof v === 'object' && v !== null && !Array.isArray(v) && typeof out[k] === 'object' && out[k] !== null ? merge(out[k] as Obj, v as Obj) : v;
  }
  return out;
}

export interface LoadConfigOptions {
  /** YAML file path (optional). */
  file?: string;
  /** The environment (only INFERLENS_* are read). */
  env?: Record<string, string | undefined>;
  /** Flag overrides, already in config shape (the typed, camelCase one). */
  flags?: ConfigInput;
  /**
   * Called once for each key the file spells the old way (camelCase, read for one more release):
   * the CLI logs it as a warning.
   */
  onDeprecated?: (d: KeyDeprecation) => void;
}

/** The warning a deprecated key gets. */
export function deprecationMessage(d: KeyDeprecation): string {
  return `config key ${d.old} is deprecated: write ${d.now} (config keys are snake_case; the camelCase spelling is read until the next release)`;
}

let schemaKeyNames: Set<string> | undefined;

/** Loads and validates the configuration; throws invalid_argument listing every problem. */
export function loadConfig(o: LoadConfigOptions = {}): Config {
  let layered: Obj = {};
  const problems: string[] = [];
  if (o.file) {
    try {
      const doc = parseYaml(readFileSync(o.file, 'utf8')) as unknown;
      if (doc != null && (typeof doc !== 'object' || Array.isArray(doc))) problems.push(`${o.file}: expected a YAML mapping at the top`);
      else {
        const found: KeyDeprecation[] = [];
        layered = merge(layered, schemaKeys(ConfigSchema, doc ?? {}, found) as Obj);
        for (const d of found) o.onDeprecated?.(d);
      }
      const storage = (doc as Obj | null)?.storage as Obj | undefined;
      if ((storage?.clickhouse as Obj | undefined)?.password !== undefined)
        problems.push(`${o.file}: storage.clickhouse.password: set it in the environment (INFERLENS_CLICKHOUSE_PASSWORD), not in a file`);
    } catch (e) {
      problems.push(`${o.file}: ${(e as Error).message}`);
    }
  }
  const envLayer: Obj = {};
  for (const [name, spec] of Object.entries(ENV_VARS)) {
    const raw = o.env?.[name];
    if (raw === undefined || raw === '') continue;
    if (spec.type === 'number') {
      const n = Number(raw);
      if (!Number.isFinite(n)) problems.push(`${name}: expected a number, got "${raw}"`);
      else setPath(envLayer, spec.path, n);
    } else if (spec.type === 'list')
      setPath(
        envLayer,
        spec.path,
        raw
          .split(',')
          .map((s) => s.trim())
          .filter(Boolean),
      );
    else setPath(envLayer, spec.path, raw);
  }
  layered = merge(merge(layered, envLayer), (o.flags ?? {}) as Obj);
  const r = ConfigSchema.safeParse(layered);
  if (!r.success) {
    // Messages name keys as a file writes them (snake_case).
    schemaKeyNames ??= camelKeys(ConfigSchema);
    for (const i of zodIssues(r.error)) problems.push(snakeMessage(`${i.path || '(top)'}: ${i.message}`, schemaKeyNames));
  }
  if (problems.length > 0 || !r.success) {
    throw new InferlensError('invalid_argument', `invalid configuration:\n  - ${problems.join('\n  - ')}`, {
      issues: problems.map((p) => ({ path: p.split(':')[0]!, message: p })),
    });
  }
  return r.data;
}

/** The keys file of a config: `server.keys_file`, else `<data_dir>/keys.json`; none for ':memory:'. */
export function keysFilePath(c: Config): string | undefined {
  if (c.server.keysFile) return resolve(c.server.keysFile);
  return c.storage.dataDir === ':memory:' ? undefined : join(resolve(c.storage.dataDir), 'keys.json');
}

/** The database file for a config: `<dataDir>/inferlens.duckdb`, or ':memory:'. */
export function databasePath(c: Config): string {
  return c.storage.dataDir === ':memory:' ? ':memory:' : join(resolve(c.storage.dataDir), 'inferlens.duckdb');
}
