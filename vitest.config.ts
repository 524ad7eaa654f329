import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // dist/ rebuilt when a source is newer (the CLI and package tests run the compiled code).
    globalSetup: ['test/global-setup.ts'],
    include: ['src/**/*.test.ts', 'test/**/*.test.ts', 'demo/**/*.test.ts', 'bench/**/*.test.ts', 'e2e/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    maxWorkers: 2,
  },
});
