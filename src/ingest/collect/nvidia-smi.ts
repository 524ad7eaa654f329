/**
 * Parser for `nvidia-smi --query-gpu=<NVIDIA_SMI_FIELDS> --format=csv,noheader,nounits`: one line
 * per GPU, fields separated by ", ". Memory is in MiB, utilisation in %, power in W. A field the
 * GPU cannot report (`[N/A]`, `[Not Supported]`, `N/A`) is left out rather than read as 0.
 */

/** The fields asked for, in order. */
export const NVIDIA_SMI_FIELDS = ['index', 'uuid', 'name', 'utilization.gpu', 'memory.used', 'memory.total', 'temperature.gpu', 'power.draw'] as const;

/** The full argument list for nvidia-smi. */
export const NVIDIA_SMI_ARGS: readonly string[] = [`--query-gpu=${NVIDIA_SMI_FIELDS.join(',')}`, '--format=csv,noheader,nounits'];

export interface GpuReading {
  index: string;
  uuid: string;
  name: string;
  utilizationRatio?: number;
  memoryUsedBytes?: number;
  memoryTotalBytes?: number;
  temperatureCelsius?: number;
  powerWatts?: number;
}

export interface NvidiaSmiParse {
  gpus: GpuReading[];
  /** Lines that did not have the 8 fields (e.g. an error message printed on stdout). */
  badLines: number;
}

const MIB = 1024 * 1024;

function num(field: string | undefined): number | undefined {
  if (field === undefined) return undefined;
  const t = field.trim();
  if (t === '' || /^\[?(?:N\/A|Not Supported|Unknown Error|Insufficient Permissions|GPU is lost)\]?$/i.test(t)) return undefined;
  const v = Number(t);
  return Number.isFinite(v) ? v : undefined;
}

export function parseNvidiaSmiCsv(text: string): NvidiaSmiParse {
  const gpus: GpuReading[] = [];
  let badLines = 0;
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line === '') continue;
    const f = line.split(',').map((x) => x.trim());
    if (f.length !== NVIDIA_SMI_FIELDS.length || !/^\d+$/.test(f[0]!)) {
      badLines++;
      continue;
    }
    const [index, uuid, name, util, used, total, temp, power] = f as [string, string, string, string, string, string, string, string];
    const g: GpuReading = { index, uuid, name };
    const u = num(util);
    if (u !== undefined) g.utilizationRatio = u / 100;
    const mu = num(used);
    if (mu !== undefined) g.memoryUsedBytes = mu * MIB;
    const mt = num(total);
    if (mt !== undefined) g.memoryTotalBytes = mt * MIB;
    const t = num(temp);
    if (t !== undefined) g.temperatureCelsius = t;
    const p = num(power);
    if (p !== undefined) g.powerWatts = p;
    gpus.push(g);
  }
  return { gpus, badLines };
}
