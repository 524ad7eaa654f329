/**
 * The `inferlens` command: serve | query | import | report | keys | rules | demo. `serve` wires the server
 * through main.ts; the other commands talk only to the public HTTP API (`query` and `import` with
 * `--api-key`, or INFERLENS_API_KEY, when the server needs one) or to files.
 *
 * Each command loads what it needs when it runs (`await import`): the server, DuckDB, the alerting
 * rules and the demo take seconds to load through tsx, and `inferlens --help` needs none of them
 * (measured here: 3.2–5.7 s before, see ARCHITECTURE.md for after). A test keeps the static imports
 * of this file to commander, the schema and the small CLI helpers.
 */
import { Command, InvalidArgumentError, Option } from 'commander';
import type { ConfigInput } from '../config/index.ts';
import { isInferlensError, parseDurationMs } from '../schema/index.ts';
import { registerDemoCommand } from './demo.ts';
import { registerKeysCommand } from './keys.ts';
import type { BacktestCommandOptions } from './backtest.ts';
import { serverUnreachable } from './reach.ts';
import { formatTable } from './table.ts';
import { alignToStep, parseTime } from './time.ts';

const int = (name: string) => (v: string) => {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0) throw new InvalidArgumentError(`${name} must be a whole number`);
  return n;
};

const program = new Command('inferlens').description('Observability for model inference services').version('0.1.0');

const ROLES = ['all', 'ingest', 'query', 'alerting'] as const;

program
  .command('serve')
  .description('run the inferlens server (storage.backend: the embedded DuckDB file, or ClickHouse)')
  .option('-c, --config <file>', 'YAML configuration file')
  .option('-p, --port <n>', 'port to listen on (default 7070)', int('port'))
  .option('--host <addr>', 'address to bind (default 127.0.0.1); beyond loopback it needs API keys (inferlens keys create) or --insecure')
  .option('--insecure', 'listen beyond loopback without API keys: anyone who can reach the port can read everything and approve actions')
  .option('-d, --data <dir>', 'data folder for the DuckDB file (default ./data)')
  .option('--retention-days <n>', 'delete data older than this', int('retention-days'))
  .addOption(new Option('--role <role>', 'what this process runs: all, or ingest / query / alerting on a shared ClickHouse').choices(ROLES))
  .addOption(new Option('--log-level <level>', 'log level').choices(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']))
  .action(
    async (o: {
      config?: string;
      port?: number;
      host?: string;
      insecure?: boolean;
      data?: string;
      retentionDays?: number;
      role?: (typeof ROLES)[number];
      logLevel?: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
    }) => {
      const flags: ConfigInput = {};
      if (o.port !== undefined || o.host !== undefined || o.insecure)
        flags.server = { ...(o.port !== undefined ? { port: o.port } : {}), ...(o.host ? { host: o.host } : {}), ...(o.insecure ? { insecure: true } : {}) };
      if (o.data !== undefined || o.retentionDays !== undefined)
        flags.storage = { ...(o.data ? { dataDir: o.data } : {}), ...(o.retentionDays !== undefined ? { retentionDays: o.retentionDays } : {}) };
      if (o.role) flags.role = o.role;
      if (o.logLevel) flags.log = { level: o.logLevel };
      const [{ loadConfig, deprecationMessage }, { startServer }] = await Promise.all([import('../config/index.ts'), import('../main.ts')]);
      const configWarnings: string[] = [];
      const config = loadConfig({ file: o.config, env: process.env, flags, onDeprecated: (d) => configWarnings.push(deprecationMessage(d)) });
      const server = await startServer(config, { configWarnings });
      console.log(`inferlens is listening on ${server.url}`);
      let stopping = false;
      const stop = (signal: string) => {
        if (stopping) return;
        stopping = true;
        console.log(`\n${signal}: stopping…`);
        void server.stop().then(() => process.exit(0));
      };
      process.on('SIGINT', () => stop('SIGINT'));
      process.on('SIGTERM', () => stop('SIGTERM'));
    },
  );

program
  .command('migrate')
  .description('create or upgrade the tables of the configured store (storage.backend); --print shows the DDL instead')
  .option('-c, --config <file>', 'YAML configuration file')
  .option('-d, --data <dir>', 'data folder for the DuckDB file (default ./data)')
  .option('--print', 'print every statement a migration of an empty store runs, and change nothing')
  .action(async (o: { config?: string; data?: string; print?: boolean }) => {
    const [{ loadConfig, deprecationMessage }, { storeOptions }, { migrationDdl, openStore }] = await Promise.all([
      import('../config/index.ts'),
      import('../main.ts'),
      import('../store/index.ts'),
    ]);
    const config = loadConfig({
      file: o.config,
      env: process.env,
      flags: o.data ? { storage: { dataDir: o.data } } : {},
      onDeprecated: (d) => console.error(`warning: ${deprecationMessage(d)}`),
    });
    const options = storeOptions(config);
    if (o.print) {
      console.log(
        migrationDdl(options)
          .map((s) => `${s.trim()};`)
          .join('\n\n'),
      );
      return;
    }
    const store = await openStore(options);
    try {
      await store.migrate();
    } finally {
      await store.close();
    }
    console.log(`migrated the ${config.storage.backend} store`);
  });

program
  .command('query')
  .description('run a query against a server and print a table')
  .option('--url <url>', 'server URL', process.env.INFERLENS_URL ?? 'http://127.0.0.1:7070')
  .option('--from <time>', 'start: now, -1h, or RFC 3339', '-1h')
  .option('--to <time>', 'end: now, -5m, or RFC 3339', 'now')
  .option('-f, --filter <dim=value[,value]>', 'filter (repeatable)', (v: string, acc: string[]) => [...acc, v], [] as string[])
  .option('-g, --group-by <dims>', 'comma-separated dimensions')
  .option('-s, --step <duration>', 'time bucket, e.g. 1m (relative times are aligned to whole steps)')
  .option('-m, --measures <list>', 'semicolon-separated measures', 'count;error_rate;p50(total_ms);p99(total_ms)')
  .option('--json', 'print the JSON answer instead of a table')
  .option('--api-key <key>', 'API key with the read role (default: $INFERLENS_API_KEY)', process.env.INFERLENS_API_KEY)
  .action(
    async (o: {
      url: string;
      from: string;
      to: string;
      filter: string[];
      groupBy?: string;
      step?: string;
      measures: string;
      json?: boolean;
      apiKey?: string;
    }) => {
      const now = Date.now();
      const filters: Record<string, string | string[]> = {};
      for (const f of o.filter) {
        const [k, v] = f.split('=', 2);
        if (!k || v === undefined) throw new InvalidArgumentError(`filter "${f}" must look like dim=value`);
        const values = v.split(',');
        filters[k] = values.length === 1 ? values[0]! : values;
      }
      const stepMs = o.step ? parseDurationMs(o.step) : undefined;
      if (o.step && stepMs === undefined) throw new InvalidArgumentError(`step "${o.step}" must be a duration such as 10s, 1m, 1h`);
      // Buckets start at `from`: -1h taken at 10:17:42.318 would give buckets at :42.318 past each
      // minute. Aligned, they start on whole steps (whole seconds without a step).
      const range = alignToStep(parseTime(o.from, now), parseTime(o.to, now), stepMs ?? 1000);
      const body = {
        from: new Date(range.fromMs).toISOString(),
        to: new Date(range.toMs).toISOString(),
        filters,
        group_by: o.groupBy ? o.groupBy.split(',') : [],
        ...(o.step ? { step: o.step } : {}),
        measures: o.measures
          .split(';')
          .map((s) => s.trim())
          .filter(Boolean),
      };
      const res = await fetch(`${o.url}/v1/query`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(o.apiKey ? { authorization: `Bearer ${o.apiKey}` } : {}) },
        body: JSON.stringify(body),
      }).catch((e: unknown) => {
        throw serverUnreachable(o.url, e);
      });
      const answer = (await res.json()) as { status: string; data?: { rows: Record<string, unknown>[] }; error?: string };
      if (answer.status !== 'success') {
        console.error(`query failed (${res.status}): ${answer.error}`);
        process.exitCode = 1;
        return;
      }
      console.log(o.json ? JSON.stringify(answer.data, null, 2) : formatTable(answer.data!.rows));
    },
  );

program
  .command('import <file>')
  .description('send an NDJSON file (optionally .gz) of events to a server, with a progress bar')
  .option('--url <url>', 'server URL', process.env.INFERLENS_URL ?? 'http://127.0.0.1:7070')
  .option('--batch <rows>', 'rows per request', int('batch'), 5000)
  .option('--api-key <key>', 'API key with the ingest role (default: $INFERLENS_API_KEY)', process.env.INFERLENS_API_KEY)
  .action(async (file: string, o: { url: string; batch: number; apiKey?: string }) => {
    const { importFile, printImport } = await import('./import.ts');
    const r = await importFile(file, { url: o.url, batchRows: o.batch, apiKey: o.apiKey, quiet: !process.stderr.isTTY });
    printImport(r, console.log);
    // Rows that were not stored are a failed import for a script: exit 1.
    if (r.rejected > 0 || r.accepted === 0) process.exitCode = 1;
  });

program
  .command('report')
  .description(
    'the periodic review from a running server: worst tail latency, versions, tenants and entries, hot GPU pools and nodes, quality, alerting health, which signal was missing, cost — each against the period before',
  )
  .option('--period <span>', 'the period ending now, 1h to 90d', '24h')
  .addOption(new Option('--format <format>', 'md (for a chat tool), html (charts, prints well) or json').choices(['md', 'html', 'json']).default('md'))
  .option('--out <file>', 'write the report to this file instead of printing it')
  .option('--url <url>', 'server URL', process.env.INFERLENS_URL ?? 'http://127.0.0.1:7070')
  .option('--api-key <key>', 'API key with the read role (default: $INFERLENS_API_KEY)', process.env.INFERLENS_API_KEY)
  .action(async (o: { period: string; format: 'md' | 'html' | 'json'; out?: string; url: string; apiKey?: string }) => {
    const res = await fetch(`${o.url}/v1/reports?period=${encodeURIComponent(o.period)}&format=${o.format}`, {
      headers: o.apiKey ? { authorization: `Bearer ${o.apiKey}` } : {},
    }).catch((e: unknown) => {
      throw serverUnreachable(o.url, e);
    });
    const text = await res.text();
    if (res.status !== 200) {
      let why = text;
      try {
        why = String((JSON.parse(text) as { error?: unknown }).error ?? text);
      } catch {
        // not JSON: print it as it came
      }
      console.error(`report failed (${res.status}): ${why}`);
      process.exitCode = 1;
      return;
    }
    const out = o.format === 'json' ? JSON.stringify((JSON.parse(text) as { data: unknown }).data, null, 2) + '\n' : text;
    if (o.out) {
      const { writeFile } = await import('node:fs/promises');
      await writeFile(o.out, out);
      console.log(`wrote ${o.out}`);
    } else process.stdout.write(out);
  });

const rules = program.command('rules').description('check, test and backtest alert rule files');
rules
  .command('check <files...>')
  .description('validate rule files; lists every problem with file:line')
  .action(async (files: string[]) => {
    const { printRulesCheck, rulesCheck } = await import('./rules.ts');
    process.exitCode = printRulesCheck(rulesCheck(files), console.log);
  });
rules
  .command('test <files...>')
  .description('evaluate rules against fixture data at given times (like promtool test rules)')
  .action(async (files: string[]) => {
    const { printRulesTest, rulesTest } = await import('./rules.ts');
    let code = 0;
    for (const f of files) code = Math.max(code, printRulesTest(f, await rulesTest(f), console.log));
    process.exitCode = code;
  });

rules
  .command('backtest')
  .description('replay rules on the live evaluator over a past range: every alert episode, and with --truth, recall, precision, top-1 slice and delay')
  .requiredOption('--from <time>', 'start: -3h, now, or RFC 3339')
  .option('--to <time>', 'end: now, -5m, or RFC 3339', 'now')
  .option(
    '-r, --rules <file>',
    'rule file (repeatable; default: the rules the server runs, or rules/default.yaml for --data)',
    (v: string, acc: string[]) => [...acc, v],
    [] as string[],
  )
  .option('--truth <file>', 'known incidents: a JSON list of {id, kind?, slice: {label: value}, start, end} (docs/api.md)')
  .option('--grace <duration>', 'an alert this long after an incident ended still belongs to it', '10m')
  .option('-d, --data <dir>', 'data directory to read (default ./data); the store is opened in this process')
  .option('--url <url>', 'a running server to backtest through instead of a data directory')
  .option('--api-key <key>', 'API key for --url', process.env.INFERLENS_API_KEY)
  .option('--json', 'print the report as JSON on the last line')
  .option('--out <file>', 'also write the whole report as JSON to this file')
  .action(async (o: BacktestCommandOptions) => {
    if (o.data && o.url) throw new InvalidArgumentError('give --data or --url, not both');
    const { runBacktestCommand } = await import('./backtest.ts');
    await runBacktestCommand(o, console.log, Date.now());
  });

registerDemoCommand(program);
registerKeysCommand(program, process.env);

program.parseAsync(process.argv).catch((e: unknown) => {
  console.error(isInferlensError(e) ? e.message : e instanceof Error ? e.message : String(e));
  process.exit(2);
});
