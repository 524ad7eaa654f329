// Parsers against this machine's real /proc files, captured twice about a second apart with a
// 50 MiB direct write in between (test/fixtures/collect/proc-1, proc-2). Expected values were read
// off the files by hand.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cpuUtilizationRatio, parseDiskstats, parseMeminfo, parseNetDev, parseProcStat } from './proc.ts';

const DIR = join(import.meta.dirname, '..', '..', '..', 'test', 'fixtures', 'collect');
const read = (snap: 1 | 2, file: string) => readFileSync(join(DIR, `proc-${snap}`, file), 'utf8');

describe('/proc/stat', () => {
  it('sums the aggregate cpu line', () => {
    // cpu  16586 0 4113 119540 559 0 222 36 0 0
    // busy = user 16586 + nice 0 + system 4113 + irq 0 + softirq 222 + steal 36 = 20957
    // total = busy + idle 119540 + iowait 559 = 141056
    expect(parseProcStat(read(1, 'stat'))).toEqual({ busy: 20957, total: 141056 });
  });
  it('utilisation from two readings', () => {
    // proc-2: cpu  16586 0 4116 119749 567 0 222 36 0 0 → busy 20960, total 141276
    // Δbusy 3, Δtotal 220 → 3 / 220 = 0.013636…
    const r = cpuUtilizationRatio(parseProcStat(read(1, 'stat'))!, parseProcStat(read(2, 'stat'))!);
    expect(r).toBeCloseTo(3 / 220, 12);
  });
  it('no progress or garbage gives nothing', () => {
    const a = parseProcStat(read(1, 'stat'))!;
    expect(cpuUtilizationRatio(a, a)).toBeUndefined();
    expect(parseProcStat('nonsense')).toBeUndefined();
    expect(parseProcStat('cpu  a b c d')).toBeUndefined();
  });
});

describe('/proc/meminfo', () => {
  it('used = total − available, in bytes', () => {
    // MemTotal: 24683656 kB, MemAvailable: 24249776 kB → used 433880 kB = 444293120 bytes
    expect(parseMeminfo(read(1, 'meminfo'))).toEqual({ totalBytes: 24683656 * 1024, availableBytes: 24249776 * 1024, usedBytes: 433880 * 1024 });
  });
  it('falls back to free + buffers + cached without MemAvailable', () => {
    // available = 1000 + 200 + 300 = 1500 kB; used = 4000 − 1500 = 2500 kB
    expect(parseMeminfo('MemTotal: 4000 kB\nMemFree: 1000 kB\nBuffers: 200 kB\nCached: 300 kB\n')).toEqual({
      totalBytes: 4000 * 1024,
      availableBytes: 1500 * 1024,
      usedBytes: 2500 * 1024,
    });
    expect(parseMeminfo('')).toBeUndefined();
  });
});

describe('/proc/net/dev', () => {
  it('bytes per interface, loopback left out', () => {
    // eth0: 270630729 rx bytes, 954549 tx bytes (9th field)
    expect(parseNetDev(read(1, 'net/dev'))).toEqual([
      { device: 'ifb0', rxBytes: 0, txBytes: 0 },
      { device: 'ifb1', rxBytes: 0, txBytes: 0 },
      { device: 'eth0', rxBytes: 270630729, txBytes: 954549 },
    ]);
  });
});

describe('/proc/diskstats', () => {
  it('whole disks only (no loop, zram, partitions), sectors × 512', () => {
    // vda: sectors read 2015986 (6th field), sectors written 2381104 (10th field)
    expect(parseDiskstats(read(1, 'diskstats'))).toEqual([{ device: 'vda', readBytes: 2015986 * 512, writtenBytes: 2381104 * 512 }]);
  });
  it('the 50 MiB write shows in the second capture', () => {
    // written sectors 2381104 → 2483504: 102400 sectors × 512 = 52428800 bytes = 50 MiB
    const a = parseDiskstats(read(1, 'diskstats'))[0]!;
    const b = parseDiskstats(read(2, 'diskstats'))[0]!;
    expect(b.writtenBytes - a.writtenBytes).toBe(50 * 1024 * 1024);
    // read sectors 2015986 → 2016290: 304 × 512 = 155648 bytes
    expect(b.readBytes - a.readBytes).toBe(155648);
  });
  it('skips partitions and device-mapper volumes', () => {
    const text = [
      ' 259       0 nvme0n1 10 0 100 0 20 0 200 0 0 0 0',
      ' 259       1 nvme0n1p1 5 0 50 0 10 0 100 0 0 0 0',
      '   8       0 sda 1 0 8 0 1 0 8 0 0 0 0',
      '   8       1 sda1 1 0 8 0 1 0 8 0 0 0 0',
      ' 253       0 dm-0 1 0 8 0 1 0 8 0 0 0 0',
    ].join('\n');
    expect(parseDiskstats(text).map((d) => d.device)).toEqual(['nvme0n1', 'sda']);
  });
});
