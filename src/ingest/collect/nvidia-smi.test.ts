import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { NVIDIA_SMI_ARGS, parseNvidiaSmiCsv } from './nvidia-smi.ts';

const DIR = join(import.meta.dirname, '..', '..', '..', 'test', 'fixtures', 'collect');

describe('parseNvidiaSmiCsv', () => {
  it('asks for the documented fields', () => {
    expect(NVIDIA_SMI_ARGS).toEqual([
      '--query-gpu=index,uuid,name,utilization.gpu,memory.used,memory.total,temperature.gpu,power.draw',
      '--format=csv,noheader,nounits',
    ]);
  });

  it('reads the capture: % → ratio, MiB → bytes; [N/A] and [Not Supported] are left out', () => {
    const r = parseNvidiaSmiCsv(readFileSync(join(DIR, 'nvidia-smi-query-gpu.csv'), 'utf8'));
    expect(r.badLines).toBe(0);
    expect(r.gpus).toEqual([
      {
        index: '0',
        uuid: 'GPU-6f1c2d3e-4a5b-6c7d-8e9f-0a1b2c3d4e5f',
        name: 'NVIDIA H100 80GB HBM3',
        utilizationRatio: 0.87, // 87 %
        memoryUsedBytes: 61234 * 1048576, // 61234 MiB
        memoryTotalBytes: 81559 * 1048576,
        temperatureCelsius: 64,
        powerWatts: 512.34,
      },
      {
        index: '1',
        uuid: 'GPU-0a9b8c7d-6e5f-4a3b-2c1d-0e9f8a7b6c5d',
        name: 'NVIDIA H100 80GB HBM3',
        utilizationRatio: 0,
        memoryUsedBytes: 4 * 1048576,
        memoryTotalBytes: 81559 * 1048576,
        temperatureCelsius: 31,
        powerWatts: 69.87,
      },
      {
        index: '2',
        uuid: 'GPU-3c4d5e6f-7a8b-4c9d-0e1f-2a3b4c5d6e7f',
        name: 'NVIDIA A10G',
        memoryUsedBytes: 1024 * 1048576,
        memoryTotalBytes: 23028 * 1048576,
        temperatureCelsius: 45,
      },
    ]);
  });

  it('an error message instead of CSV gives no GPUs and counts the lines', () => {
    const r = parseNvidiaSmiCsv(readFileSync(join(DIR, 'nvidia-smi-no-driver.txt'), 'utf8'));
    expect(r).toEqual({ gpus: [], badLines: 1 });
  });
});
