/**
 * Pure parsers for Linux /proc files. Each takes the file's text and never throws: a line it does
 * not understand is skipped. Units: bytes, and jiffies for CPU time (only ratios of jiffies are used).
 */

/** Aggregate CPU times from the first `cpu ` line of /proc/stat, in jiffies. */
export interface CpuTimes {
  /** Time doing work: user + nice + system + irq + softirq + steal. */
  busy: number;
  /** busy + idle + iowait. guest and guest_nice are already inside user and nice, so they are not added. */
  total: number;
}

export function parseProcStat(text: string): CpuTimes | undefined {
  const line = text.split('\n').find((l) => l.startsWith('cpu '));
  if (!line) return undefined;
  const f = line.trim().split(/\s+/).slice(1).map(Number);
  if (f.length < 4 || f.some((x) => !Number.isFinite(x))) return undefined;
  const [user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0, steal = 0] = f;
  const busy = user + nice + system + irq + softirq + steal;
  return { busy, total: busy + idle + iowait };
}

/**
 * Share of CPU time spent busy between two readings, 0–1. iowait counts as idle (the CPU was free
 * to run something else). Example: Δbusy 3, Δtotal 220 jiffies → 0.0136.
 */
export function cpuUtilizationRatio(prev: CpuTimes, cur: CpuTimes): number | undefined {
  const total = cur.total - prev.total;
  const busy = cur.busy - prev.busy;
  if (total <= 0 || busy < 0) return undefined;
  return Math.min(1, busy / total);
}

export interface MemInfo {
  totalBytes: number;
  availableBytes: number;
  /** total − available: what applications hold (page cache that can be dropped does not count). */
  usedBytes: number;
}

/** /proc/meminfo (values in kB = KiB). Falls back to free + buffers + cached on kernels without MemAvailable (< 3.14). */
export function parseMeminfo(text: string): MemInfo | undefined {
  const kb = new Map<string, number>();
  for (const line of text.split('\n')) {
    const m = /^(\w+(?:\(\w+\))?):\s+(\d+)(?:\s+kB)?\s*$/.exec(line);
    if (m) kb.set(m[1]!, Number(m[2]));
  }
  const total = kb.get('MemTotal');
  if (total === undefined) return undefined;
  const available = kb.get('MemAvailable') ?? (kb.get('MemFree') ?? 0) + (kb.get('Buffers') ?? 0) + (kb.get('Cached') ?? 0);
  return { totalBytes: total * 1024, availableBytes: available * 1024, usedBytes: Math.max(0, total - available) * 1024 };
}

export interface NetCounters {
  device: string;
  rxBytes: number;
  txBytes: number;
}

/** /proc/net/dev: cumulative bytes per interface. The loopback interface is left out. */
export function parseNetDev(text: string): NetCounters[] {
  const out: NetCounters[] = [];
  for (const line of text.split('\n')) {
    const colon = line.indexOf(':');
    if (colon < 0 || line.includes('|')) continue; // the two header lines
    const device = line.slice(0, colon).trim();
    const f = line
      .slice(colon + 1)
      .trim()
      .split(/\s+/)
      .map(Number);
    // 8 receive fields, then transmit: bytes packets errs drop fifo colls carrier compressed.
    if (device === '' || device === 'lo' || f.length < 16 || !Number.isFinite(f[0]) || !Number.isFinite(f[8])) continue;
    out.push({ device, rxBytes: f[0]!, txBytes: f[8]! });
  }
  return out;
}

export interface DiskCounters {
  device: string;
  readBytes: number;
  writtenBytes: number;
}

/** Virtual devices and partitions, whose IO is already counted on the whole physical disk. */
const SKIP_DISK = /^(?:loop\d+|ram\d+|zram\d+|dm-\d+|md\d+|sr\d+|fd\d+|(?:sd|vd|xvd|hd)[a-z]+\d+|nvme\d+n\d+p\d+|mmcblk\d+p\d+)$/;

/**
 * /proc/diskstats: cumulative bytes read and written per whole disk. Sectors in diskstats are
 * always 512 bytes, whatever the device's sector size (Documentation/admin-guide/iostats.rst).
 */
export function parseDiskstats(text: string): DiskCounters[] {
  const out: DiskCounters[] = [];
  for (const line of text.split('\n')) {
    const f = line.trim().split(/\s+/);
    if (f.length < 10) continue;
    const device = f[2]!;
    if (SKIP_DISK.test(device)) continue;
    const readSectors = Number(f[5]);
    const writtenSectors = Number(f[9]);
    if (!Number.isFinite(readSectors) || !Number.isFinite(writtenSectors)) continue;
    out.push({ device, readBytes: readSectors * 512, writtenBytes: writtenSectors * 512 });
  }
  return out;
}
