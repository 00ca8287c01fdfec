import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/unit/**/*.test.ts', 'test/integration/**/*.test.ts', 'server/src/**/*.test.ts', 'src/**/*.test.ts'],
    // Native modules (better-sqlite3) and real servers: separate processes keep suites isolated.
    pool: 'forks',
    // Vitest's default is one fork less than the cores: one on CI's two. Most suites wait on servers, databases and
    // child processes rather than compute, so two forks keep both cores busy: the stage takes about half as long.
    maxWorkers: 2,
    globalSetup: ['test/support/build-server.ts'],
    // A safety net, not a wait: the slowest tests (packing, building, every route) take 10 to 40 s on an idle 2-core
    // machine, and the typecheck and lint run beside them.
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
