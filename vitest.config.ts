import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    reporters: ['default', './test/support/summary-reporter.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Vitest's default (one worker fewer than the cores) runs one file at a time on a 2-core machine, where the
    // classifier's leave-one-design-out test alone takes minutes: two workers let the rest run beside it.
    maxWorkers: Math.max(2, availableParallelism() - 1),
    globalSetup: ['./test/support/scratch-tmpdir.ts'],
    setupFiles: ['./test/support/typed-array-equality.ts'],
  },
});
