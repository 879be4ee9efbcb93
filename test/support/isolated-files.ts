/**
 * The garment tests: long, CPU-bound runs over large rasters, which slowed several-fold in a worker whose heap had
 * grown over the files before them (on a fresh clone the leave-one-design-out file's name test took 93 s shared,
 * 18 s isolated). Their imports are a small share of their time.
 */
export const ISOLATED_TEST_DIRS = ['test/garment/'];

/**
 * Test files that change what a module reads once, at import: an environment variable read when a module loads,
 * a module replaced with `vi.mock`. Each runs in a fresh process (vitest.config.ts); the rest share their
 * worker's loaded modules. `test/isolation.test.ts` finds every file that writes the environment or mocks a
 * module and checks it is here.
 */
export const ISOLATED_TEST_FILES = [
  'test/calls/fuzz-tools.test.ts',
  'test/engine/io/psd-worker-fallback.test.ts',
  'test/engine/io/psd-worker.test.ts',
  'test/engine/workspace-temps.test.ts',
  'test/garment/openai-vision.test.ts',
  'test/garment/photo-thread.test.ts',
  'test/server/service-session-folders.test.ts',
  'test/service/journal.test.ts',
  'test/service/session-threads.test.ts',
  'test/service/thread-photo.test.ts',
  'test/tools/open-image-problems.test.ts',
];
