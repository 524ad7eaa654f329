// `npm ci` refuses a lock file that lacks any optional dependency package.json reaches, even one for
// another platform. chdb's engine comes as one optional package per platform; a registry mirror that
// carries only this platform's makes `npm install` write a lock without the others, and the next
// clean install (`.ci/run`) fails. This keeps them listed.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const lock = JSON.parse(readFileSync(new URL('../package-lock.json', import.meta.url), 'utf8')) as {
  packages: Record<string, { optionalDependencies?: Record<string, string>; version?: string }>;
};

describe('package-lock.json', () => {
  it('lists every platform package of chdb at the version chdb asks for', () => {
    const wanted = lock.packages['node_modules/chdb']?.optionalDependencies ?? {};
    expect(Object.keys(wanted).length).toBeGreaterThanOrEqual(4);
    for (const [name, version] of Object.entries(wanted)) expect(lock.packages[`node_modules/${name}`]?.version, name).toBe(version);
  });
});
