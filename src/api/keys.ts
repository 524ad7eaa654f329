/**
 * API keys: created once (`inferlens keys create`), shown once, stored only as a SHA-256 hash in
 * the keys file (`<data>/keys.json`, mode 0600) or the config (`server.keys`). A key is
 * `ilk_<id>_<secret>`: the id (12 hex digits) finds the record, the secret (32 random bytes,
 * base64url) is what is proven; the hash of the whole key is compared with `timingSafeEqual`.
 * SHA-256 rather than a slow password hash because the secret is 256 random bits, not a password:
 * nothing to brute-force, and the check stays ~1 µs on the ingest path.
 *
 * The keyring re-reads the keys file when it changes (checked at most once a second), so a key
 * created or revoked while the server runs takes effect without a restart.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { z } from 'zod';
import { InferlensError, KeyRecordSchema, zodIssues } from '../schema/index.ts';
import type { KeyRecord, Principal, Role } from '../schema/index.ts';

const KEY_RE = /^ilk_([0-9a-f]{12})_([A-Za-z0-9_-]{43})$/;

const KeysFileSchema = z.object({ keys: z.array(KeyRecordSchema).max(10_000) }).strict();

const sha256 = (s: string): Buffer => createHash('sha256').update(s, 'utf8').digest();

/** A new key and its record (the caller shows the key once and stores only the record). */
export function generateKey(o: { name: string; role: Role; tenants?: readonly string[] | null; nowMs: number }): { key: string; record: KeyRecord } {
  const id = randomBytes(6).toString('hex');
  const key = `ilk_${id}_${randomBytes(32).toString('base64url')}`;
  return {
    key,
    record: {
      id,
      name: o.name,
      role: o.role,
      tenants: o.tenants && o.tenants.length > 0 ? [...o.tenants] : null,
      sha256: sha256(key).toString('hex'),
      created_at: new Date(o.nowMs).toISOString(),
    },
  };
}

/** Reads a keys file; a missing file is no keys. Throws invalid_argument naming the file and every problem. */
export function readKeysFile(file: string): KeyRecord[] {
  if (!existsSync(file)) return [];
  let doc: unknown;
  try {
    doc = JSON.parse(readFileSync(file, 'utf8'));
  } catch (e) {
    throw new InferlensError('invalid_argument', `keys file ${file}: not valid JSON: ${(e as Error).message}`);
  }
  const r = KeysFileSchema.safeParse(doc);
  if (!r.success)
    throw new InferlensError(
      'invalid_argument',
      `keys file ${file}: ${zodIssues(r.error)
        .map((i) => `${i.path}: ${i.message}`)
        .join('; ')}`,
    );
  return r.data.keys;
}

/** Writes a keys file atomically, readable by its owner only. */
export function writeKeysFile(file: string, keys: readonly KeyRecord[]): void {
  mkdirSync(dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, JSON.stringify({ keys }, null, 2) + '\n', { mode: 0o600 });
  renameSync(tmp, file);
}

export interface Keyring {
  /** The principal of a presented key, or undefined (unknown, revoked, malformed). */
  authenticate(key: string): Principal | undefined;
  /**
   * Whether keys are required: a key in the config, or a keys file (even an empty one). Without,
   * the server runs open, on loopback only.
   */
  enabled(): boolean;
  /** Whether a principal's key still exists (a session ends when its key is revoked). */
  has(id: string): boolean;
  /** A key valid only in this process (the demo's own traffic); never written anywhere. */
  ephemeral(name: string, role: Role): string;
}

export interface KeyringOptions {
  /** The keys file, re-read when it changes. */
  file?: string;
  /** Keys from the config (`server.keys`). */
  keys?: readonly KeyRecord[];
  now?: () => number;
}

export function createKeyring(o: KeyringOptions): Keyring {
  const now = o.now ?? Date.now;
  const fixed = [...(o.keys ?? [])];
  const extra: KeyRecord[] = [];
  let byId = new Map<string, KeyRecord>();
  let fileMtimeMs = -1;
  let checkedAtMs = -Infinity;
  const rebuild = (fromFile: readonly KeyRecord[]) => {
    byId = new Map([...fixed, ...fromFile, ...extra].map((k) => [k.id, k]));
  };
  let fromFile: KeyRecord[] = [];
  let fileExists = false;
  const refresh = () => {
    if (!o.file) return;
    const t = now();
    if (t - checkedAtMs < 1000 && t >= checkedAtMs) return;
    checkedAtMs = t;
    let mtime = 0;
    try {
      mtime = statSync(o.file).mtimeMs;
    } catch {
      mtime = 0; // no file: no keys from it
    }
    if (mtime === fileMtimeMs) return;
    fileMtimeMs = mtime;
    fileExists = mtime !== 0;
    fromFile = mtime === 0 ? [] : readKeysFile(o.file);
    rebuild(fromFile);
  };
  rebuild([]);
  refresh();
  return {
    authenticate(key) {
      refresh();
      const m = KEY_RE.exec(key);
      const record = m ? byId.get(m[1]!) : undefined;
      // Compare against something of the same length either way (the id is not secret, but the
      // work done should not depend on whether it exists).
      const expected = record ? Buffer.from(record.sha256, 'hex') : sha256('');
      const ok = timingSafeEqual(sha256(key), expected) && record !== undefined;
      return ok ? { id: record.id, name: record.name, role: record.role, tenants: record.tenants } : undefined;
    },
    enabled() {
      refresh();
      // A keys file, even an empty one, means keys are required: revoking the last key closes
      // the server rather than opening it.
      return fileExists || byId.size > 0;
    },
    has(id) {
      refresh();
      return byId.has(id);
    },
    ephemeral(name, role) {
      const { key, record } = generateKey({ name, role, nowMs: now() });
      extra.push(record);
      rebuild(fromFile);
      return key;
    },
  };
}
