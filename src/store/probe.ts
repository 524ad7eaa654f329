/**
 * Whether a folder takes writes again after a write failed (a full disk): writes `bytes` to a
 * probe file in it, syncs, and removes it. Throws (the fs error) when it cannot. Cheap enough for
 * a readiness check rate-limited to once a second: 1 MiB by default, about the staging file of a
 * 5,000-row batch.
 */
import { closeSync, fsyncSync, openSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';

export async function probeWritable(dir: string, bytes = 1 << 20): Promise<void> {
  const file = join(dir, `probe-${process.pid}.tmp`);
  try {
    const fd = openSync(file, 'w');
    try {
      writeSync(fd, Buffer.alloc(bytes));
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  } finally {
    rmSync(file, { force: true });
  }
}
