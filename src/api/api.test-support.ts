/**
 * Test helpers: an API app over given route groups, with the real guard, a keyring of given keys
 * (none: the open anonymous server) and in-memory audit and sessions. Not exported by index.ts.
 */
import pino from 'pino';
import { Registry } from 'prom-client';
import { InferlensError } from '../schema/index.ts';
import type { ReadScope } from '../schema/index.ts';
import type { Sink } from '../pipeline/index.ts';
import { createApi } from './app.ts';
import type { Api } from './app.ts';
import { createAuditLog } from './audit.ts';
import type { AuditLog } from './audit.ts';
import { createKeyring } from './keys.ts';
import type { Keyring } from './keys.ts';
import type { Reads, Route } from './routes.ts';

const noSink: Sink = {
  admit: () => undefined,
  writeEvents: async () => {
    throw new InferlensError('unavailable', 'no sink in this test');
  },
  writeResources: async () => ({ accepted: 0, rejected: [] }),
  writeFeedback: async () => ({ accepted: 0, rejected: [] }),
};

/** Reads that fail when used (the guard builds a caller's reads for every non-public route). */
const noReads = (): Reads => {
  const fail = (): never => {
    throw new InferlensError('internal', 'no reads in this test');
  };
  return {
    get queries() {
      return fail();
    },
    get comparer() {
      return fail();
    },
    get quality() {
      return fail();
    },
    get typed() {
      return fail();
    },
  };
};

export function testApi(o: {
  routes: Route[][];
  reads?: (scope: ReadScope) => Reads;
  keyring?: Keyring;
  audit?: AuditLog;
  sink?: Sink;
  now?: () => number;
  allowedHost?: (hostname: string) => boolean;
}): Api & { audit: AuditLog } {
  const audit = o.audit ?? createAuditLog();
  const api = createApi({
    sink: o.sink ?? noSink,
    reads: o.reads ?? noReads,
    keyring: o.keyring ?? createKeyring({}),
    audit,
    logger: pino({ level: 'silent' }),
    registry: new Registry(),
    maxBodyBytes: 1 << 20,
    ready: () => true,
    routes: o.routes,
    ...(o.now ? { now: o.now } : {}),
    ...(o.allowedHost ? { allowedHost: o.allowedHost } : {}),
  });
  return { ...api, audit };
}
