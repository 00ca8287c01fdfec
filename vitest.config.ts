import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/unit/**/*.test.ts', 'test/integration/**/*.test.ts', 'server/src/**/*.test.ts', 'src/**/*.test.ts'],
    // Native modules (better-sqlite3) and real servers: separate processes keep suites isolated.
    pool: 'forks',
    globalSetup: ['test/support/build-server.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
