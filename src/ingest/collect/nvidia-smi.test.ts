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

  it('reads real captures of an H200 (driver 580.159.04), idle and with 48 GiB held by bf16 matrix products', () => {
    const read = (f: string) => parseNvidiaSmiCsv(readFileSync(join(DIR, f), 'utf8'));
    const gpu = { index: '0', uuid: 'GPU-69251176-cd04-86e9-8be6-e34f4783896b', name: 'NVIDIA H200', memoryTotalBytes: 143771 * 1048576 };
    expect(read('nvidia-smi-query-gpu-h200-idle.csv')).toEqual({
      badLines: 0,
      gpus: [{ ...gpu, utilizationRatio: 0, memoryUsedBytes: 0, temperatureCelsius: 37, powerWatts: 79.53 }],
    });
    // 50291 MiB = 52,733,935,616 bytes: PyTorch's 48 GiB tensor and two 8192² bf16 matrices, plus its context.
    expect(read('nvidia-smi-query-gpu-h200-busy.csv')).toEqual({
      badLines: 0,
      gpus: [{ ...gpu, utilizationRatio: 1, memoryUsedBytes: 52_733_935_616, temperatureCelsius: 61, powerWatts: 690.97 }],
    });
  });

  it('an error message instead of CSV gives no GPUs and counts the lines', () => {
    const r = parseNvidiaSmiCsv(readFileSync(join(DIR, 'nvidia-smi-no-driver.txt'), 'utf8'));
    expect(r).toEqual({ gpus: [], badLines: 1 });
  });
});
