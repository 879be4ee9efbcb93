import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';
import { ISOLATED_TEST_DIRS, ISOLATED_TEST_FILES } from './test/support/isolated-files.js';

const ISOLATED = [...ISOLATED_TEST_FILES, ...ISOLATED_TEST_DIRS.map((dir) => `${dir}**/*.test.ts`)];

export default defineConfig({
  test: {
    reporters: ['default', './test/support/summary-reporter.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Vitest's default (one worker fewer than the cores) runs one file at a time on a 2-core machine, where the
    // classifier's leave-one-design-out test alone takes minutes: two workers let the rest run beside it.
    maxWorkers: Math.max(2, availableParallelism() - 1),
    globalSetup: ['./test/support/scratch-tmpdir.ts'],
    setupFiles: ['./test/support/typed-array-equality.ts'],
    // A file shares its worker's loaded modules with the files before it, which saves the 1–2 s each spent
    // importing sharp, canvas, the registry and the tools again (a fifth of the suite's time on 2 cores); a file
    // that changes what a module reads at import runs in a fresh process, and so do the long CPU-bound garment
    // tests, which a heap grown by other files slowed.
    projects: [
      {
        extends: true,
        test: {
          name: 'shared',
          include: ['test/**/*.test.ts'],
          exclude: ISOLATED,
          isolate: false,
        },
      },
      { extends: true, test: { name: 'isolated', include: ISOLATED, isolate: true } },
    ],
  },
});
