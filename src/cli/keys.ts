/**
 * `inferlens keys create | list | revoke`: API keys in the keys file (`<data>/keys.json`, or
 * `server.keys_file`). A key is printed once, on stdout alone (`KEY=$(inferlens keys create …)`);
 * only its SHA-256 is stored. A running server picks changes up within a second. The key file code
 * (src/api) and the config load when a keys command runs, not for `inferlens --help`.
 */
import { InvalidArgumentError, Option } from 'commander';
import type { Command } from 'commander';
import type { ConfigInput } from '../config/index.ts';
import { InferlensError, ROLES } from '../schema/index.ts';
import type { Role } from '../schema/index.ts';
import { formatTable } from './table.ts';

interface FileFlags {
  config?: string;
  data?: string;
  keysFile?: string;
}

/** The keys file the server with these flags (and config, and INFERLENS_* env) reads. */
export async function keysFileOf(o: FileFlags, env: Record<string, string | undefined>): Promise<string> {
  const { deprecationMessage, keysFilePath, loadConfig } = await import('../config/index.ts');
  const flags: ConfigInput = {};
  if (o.data !== undefined || o.keysFile !== undefined) {
    if (o.data !== undefined) flags.storage = { dataDir: o.data };
    if (o.keysFile !== undefined) flags.server = { keysFile: o.keysFile };
  }
  const file = keysFilePath(
    loadConfig({ ...(o.config ? { file: o.config } : {}), env, flags, onDeprecated: (d) => console.error(`warning: ${deprecationMessage(d)}`) }),
  );
  if (!file) throw new InferlensError('invalid_argument', 'the data folder is :memory: and no server.keys_file is set: there is no keys file to write');
  return file;
}

const withFileOptions = (c: Command) =>
  c
    .option('-c, --config <file>', 'YAML configuration file (server.keys_file, storage.data_dir)')
    .option('-d, --data <dir>', 'data folder of the server (default ./data): keys go to <dir>/keys.json')
    .option('--keys-file <file>', 'the keys file itself');

export function registerKeysCommand(program: Command, env: Record<string, string | undefined>): void {
  const keys = program.command('keys').description('create, list and revoke API keys (stored hashed in the keys file)');
  withFileOptions(keys.command('create'))
    .description('create a key and print it once')
    .addOption(
      new Option('--role <role>', 'ingest | read | operate (read + silences, approvals, golden sets) | admin | metrics')
        .choices([...ROLES])
        .makeOptionMandatory(),
    )
    .option(
      '--tenant <name>',
      'limit the key to this tenant (repeatable): it reads and writes only these tenants',
      (v: string, acc: string[]) => [...acc, v],
      [] as string[],
    )
    .option('--name <name>', 'a name shown in the audit log and on the dashboard')
    .action(async (o: FileFlags & { role: Role; tenant: string[]; name?: string }) => {
      if (o.tenant.some((t) => t.length === 0 || t.length > 256)) throw new InvalidArgumentError('--tenant must be 1–256 characters');
      const { generateKey, readKeysFile, writeKeysFile } = await import('../api/index.ts');
      const file = await keysFileOf(o, env);
      const existing = readKeysFile(file);
      const { key, record } = generateKey({
        name: o.name ?? `${o.role}${o.tenant.length ? `-${o.tenant.join('+')}` : ''}`,
        role: o.role,
        tenants: o.tenant,
        nowMs: Date.now(),
      });
      writeKeysFile(file, [...existing, record]);
      console.error(
        `created key ${record.id} "${record.name}" (role ${record.role}${record.tenants ? `, tenants ${record.tenants.join(', ')}` : ', every tenant'}) in ${file}; it is shown once:`,
      );
      console.log(key);
    });
  withFileOptions(keys.command('list'))
    .description('list keys (ids, names, roles, tenants; never the keys)')
    .action(async (o: FileFlags) => {
      const { readKeysFile } = await import('../api/index.ts');
      const file = await keysFileOf(o, env);
      const rows = readKeysFile(file).map((k) => ({
        id: k.id,
        name: k.name,
        role: k.role,
        tenants: k.tenants ? k.tenants.join(',') : '*',
        created: k.created_at ?? '',
      }));
      console.log(rows.length ? formatTable(rows) : `no keys in ${file}`);
    });
  withFileOptions(keys.command('revoke <id>'))
    .description('delete a key: requests and dashboard sessions with it stop within a second')
    .action(async (id: string, o: FileFlags) => {
      const { readKeysFile, writeKeysFile } = await import('../api/index.ts');
      const file = await keysFileOf(o, env);
      const existing = readKeysFile(file);
      const kept = existing.filter((k) => k.id !== id);
      if (kept.length === existing.length) throw new InferlensError('not_found', `no key ${id} in ${file}: inferlens keys list shows them`);
      writeKeysFile(file, kept);
      console.log(`revoked key ${id}`);
    });
}
