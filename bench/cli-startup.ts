/**
 * CPU time of CLI commands that only print (`--help`, `query --help`, `keys --help`), against a
 * bare `node -e ""` measured in the same run, alternating so load on the machine hits both alike.
 * Median user + system CPU of each, and the ratio to the bare start.
 *
 *   npm run bench:cli -- --json [--runs 15]
 *
 * Runs the compiled CLI (`npm run build` first). The last line (with --json) is one JSON object.
 */
import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';

const args = process.argv.slice(2);
const json = args.includes('--json');
const runsArg = args.indexOf('--runs');
const RUNS = runsArg >= 0 ? Number(args[runsArg + 1]) : 15;
const BIN = resolve(import.meta.dirname, '..', 'bin', 'inferlens.js');

/** User + system CPU seconds of one run, from bash's `time` (the child's own rusage). */
function cpuSeconds(argv: string[]): number {
  const quoted = argv.map((a) => `'${a.replace(/'/g, "'\\''")}'`).join(' ');
  const r = spawnSync('bash', ['-c', `TIMEFORMAT='%U %S'; time ${quoted} > /dev/null 2>&1`], { encoding: 'utf8' });
  const [user, sys] = r.stderr.trim().split(/\s+/).slice(-2).map(Number);
  return user! + sys!;
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

const cases: Record<string, string[]> = {
  'node -e ""': [process.execPath, '-e', ''],
  'inferlens --help': [process.execPath, BIN, '--help'],
  'inferlens query --help': [process.execPath, BIN, 'query', '--help'],
  'inferlens keys --help': [process.execPath, BIN, 'keys', '--help'],
};
const samples: Record<string, number[]> = Object.fromEntries(Object.keys(cases).map((k) => [k, []]));
for (let i = 0; i < RUNS; i++) for (const [name, argv] of Object.entries(cases)) samples[name]!.push(cpuSeconds(argv));

const base = median(samples['node -e ""']!);
const result = Object.fromEntries(
  Object.entries(samples).map(([name, xs]) => [name, { cpu_s: Number(median(xs).toFixed(3)), ratio_to_bare_node: Number((median(xs) / base).toFixed(2)) }]),
);
for (const [name, r] of Object.entries(result))
  console.log(`${name.padEnd(24)} ${r.cpu_s.toFixed(3)} s CPU (median of ${RUNS})  ×${r.ratio_to_bare_node} bare node`);
if (json) console.log(JSON.stringify({ runs: RUNS, ...result }));
