/**
 * The ingest write-ahead log: segment files of validated NDJSON event lines under one folder.
 *
 * Contract: `append` resolves once its lines are on disk (written and fsynced). Appends that arrive
 * while a write + fsync runs are gathered and written with the next single write + fsync (group
 * commit), so the fsync cost is shared by every request in flight. Every line ends with '\n'; a
 * trailing part without one was never acknowledged (a crash mid-append) and is cut off on recovery.
 *
 * Segment ids sort in creation order: `<run start ms, 15 digits>-<seq, 8 digits>`. The folder holds
 * only this WAL's files; a file is deleted once its rows are loaded into the store.
 */
import { mkdirSync, readdirSync } from 'node:fs';
import { open, rm } from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import { join } from 'node:path';

export interface WalSegment {
  id: string;
  path: string;
  rows: number;
  /** Bounds of the rows' ts (epoch ms); absent for segments recovered from an earlier run. */
  minTsMs?: number;
  maxTsMs?: number;
}

export interface Wal {
  /**
   * Segments left by an earlier run, oldest first, each with its torn tail cut off.
   * `tornLines` counts the partial trailing lines dropped.
   */
  recover(): Promise<{ segments: WalSegment[]; tornLines: number }>;
  /** Appends lines (no '\n' inside) to the current segment; resolves after the fsync. */
  append(lines: readonly string[], minTsMs: number, maxTsMs: number): Promise<void>;
  /** Closes the current segment once the appends before this call are written; null when it is empty. */
  rotate(): Promise<WalSegment | null>;
  /** Rows in the current (open) segment, including appends not yet written. */
  currentRows(): number;
  /** When the current segment got its first row (epoch ms), or null when it is empty. */
  currentSinceMs(): number | null;
  /** Deletes a loaded segment's file. */
  remove(segment: WalSegment): Promise<void>;
}

interface Pending {
  text: string;
  rows: number;
  minTsMs: number;
  maxTsMs: number;
  resolve: () => void;
  reject: (e: unknown) => void;
}

interface Current {
  segment: WalSegment & { minTsMs: number; maxTsMs: number };
  fh: FileHandle;
  /** Bytes of whole, fsynced lines. */
  bytes: number;
}

const SEGMENT_RE = /^seg-(\d{15}-\d{8})\.ndjson$/;
/** Bytes read from the end of a recovered segment to find its last complete line. */
const TAIL_BYTES = 4 * 1024 * 1024;

export function createWal(dir: string, now: () => number = Date.now): Wal {
  mkdirSync(dir, { recursive: true });
  const runPrefix = String(Date.now()).padStart(15, '0');
  let seq = 0;
  let current: Current | null = null;
  let pending: Pending[] = [];
  let pendingRows = 0;
  let sinceMs: number | null = null;
  // One chain runs every file operation in order: writes, fsyncs, rotations.
  let chain: Promise<unknown> = Promise.resolve();
  let writeScheduled = false;

  const pathOf = (id: string) => join(dir, `seg-${id}.ndjson`);

  async function openSegment(): Promise<Current> {
    const id = `${runPrefix}-${String(++seq).padStart(8, '0')}`;
    const path = pathOf(id);
    const fh = await open(path, 'a');
    // The new file's directory entry must survive a crash too.
    const d = await open(dir, 'r');
    try {
      await d.sync();
    } finally {
      await d.close();
    }
    return { segment: { id, path, rows: 0, minTsMs: Infinity, maxTsMs: -Infinity }, fh, bytes: 0 };
  }

  async function writePending(): Promise<void> {
    writeScheduled = false;
    if (pending.length === 0) return;
    const batch = pending;
    pending = [];
    pendingRows = 0;
    const c = (current ??= await openSegment().catch((e: unknown) => {
      for (const p of batch) p.reject(e);
      return null;
    }));
    if (!c) return;
    try {
      const seg = c.segment;
      const data = Buffer.from(batch.length === 1 ? batch[0]!.text : batch.map((p) => p.text).join(''));
      for (let off = 0; off < data.length; ) off += (await c.fh.write(data, off)).bytesWritten;
      await c.fh.datasync();
      c.bytes += data.length;
      for (const p of batch) {
        seg.rows += p.rows;
        if (p.minTsMs < seg.minTsMs) seg.minTsMs = p.minTsMs;
        if (p.maxTsMs > seg.maxTsMs) seg.maxTsMs = p.maxTsMs;
      }
      for (const p of batch) p.resolve();
    } catch (e) {
      // A failed write may leave part of a line behind: cut it so the segment stays whole lines.
      await c.fh.truncate(c.bytes).catch(() => undefined);
      for (const p of batch) p.reject(e);
    }
  }

  function schedule<T>(fn: () => Promise<T>): Promise<T> {
    const p = chain.then(fn);
    chain = p.catch(() => undefined);
    return p;
  }

  return {
    async recover() {
      const ids = readdirSync(dir)
        .map((f) => SEGMENT_RE.exec(f)?.[1])
        .filter((id): id is string => id !== undefined && !id.startsWith(`${runPrefix}-`))
        .sort();
      const segments: WalSegment[] = [];
      let tornLines = 0;
      for (const id of ids) {
        const path = pathOf(id);
        const fh = await open(path, 'r+');
        try {
          const { size } = await fh.stat();
          // Cut everything after the last '\n': it was never fsynced as a whole line, so never acknowledged.
          let end = size;
          let pos = size;
          let found = size === 0;
          while (!found && pos > 0) {
            const from = Math.max(0, pos - TAIL_BYTES);
            const buf = Buffer.alloc(pos - from);
            await fh.read(buf, 0, buf.length, from);
            const i = buf.lastIndexOf(0x0a);
            if (i >= 0) {
              end = from + i + 1;
              found = true;
            } else pos = from;
          }
          if (!found) end = 0;
          if (end < size) {
            tornLines++;
            await fh.truncate(end);
            await fh.sync();
          }
          // Count lines (rows) for the backlog.
          let rows = 0;
          const buf = Buffer.alloc(1024 * 1024);
          for (let off = 0; off < end; ) {
            const { bytesRead } = await fh.read(buf, 0, Math.min(buf.length, end - off), off);
            if (bytesRead === 0) break;
            for (let i = buf.indexOf(0x0a); i >= 0 && i < bytesRead; i = buf.indexOf(0x0a, i + 1)) rows++;
            off += bytesRead;
          }
          segments.push({ id, path, rows });
        } finally {
          await fh.close();
        }
      }
      return { segments, tornLines };
    },

    append(lines, minTsMs, maxTsMs) {
      if (lines.length === 0) return Promise.resolve();
      sinceMs ??= now();
      pendingRows += lines.length;
      return new Promise<void>((resolve, reject) => {
        pending.push({ text: lines.join('\n') + '\n', rows: lines.length, minTsMs, maxTsMs, resolve, reject });
        if (!writeScheduled) {
          writeScheduled = true;
          void schedule(writePending);
        }
      });
    },

    rotate() {
      return schedule(async () => {
        await writePending();
        const c = current;
        if (!c || c.segment.rows === 0) return null;
        current = null;
        sinceMs = pending.length > 0 ? now() : null;
        await c.fh.close();
        return c.segment;
      });
    },

    currentRows: () => (current?.segment.rows ?? 0) + pendingRows,
    currentSinceMs: () => sinceMs,

    async remove(segment) {
      await rm(segment.path, { force: true });
    },
  };
}
