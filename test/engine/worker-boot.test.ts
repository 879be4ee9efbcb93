/**
 * Which module a worker thread starts on when the caller runs from sources: the build in dist/ while no source
 * is newer than it, the TypeScript source (through tsx) as soon as one is.
 */
import { mkdirSync, mkdtempSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { currentBuildOf, spawnSiblingWorker } from '../../src/engine/worker-boot.js';

/** A project with src/a/w.ts and its build dist/a/w.js, every source dated `srcAt`, the build `builtAt`. */
function project(srcAt: number, builtAt: number): { root: string; source: string; built: string } {
  const root = mkdtempSync(join(tmpdir(), 'worker-boot-'));
  const source = join(root, 'src', 'a', 'w.ts');
  const other = join(root, 'src', 'b', 'other.ts');
  const built = join(root, 'dist', 'a', 'w.js');
  for (const f of [source, other, built]) mkdirSync(join(f, '..'), { recursive: true });
  writeFileSync(
    source,
    "import { parentPort } from 'node:worker_threads'; parentPort?.postMessage('src');\n",
  );
  writeFileSync(other, 'export {};\n');
  writeFileSync(
    built,
    "import { parentPort } from 'node:worker_threads'; parentPort?.postMessage('dist');\n",
  );
  for (const f of [source, other, join(root, 'src', 'a'), join(root, 'src', 'b'), join(root, 'src')]) {
    utimesSync(f, srcAt, srcAt);
  }
  utimesSync(built, builtAt, builtAt);
  return { root, source, built };
}

const firstMessage = (w: Worker) =>
  new Promise<unknown>((resolve, reject) => {
    w.once('message', resolve);
    w.once('error', reject);
  }).finally(() => w.terminate());

describe('a worker started from sources', () => {
  it('runs the build when every source is older than it', async () => {
    const { source, built } = project(1_000_000, 2_000_000);
    expect(currentBuildOf(source)).toBe(built);
    const caller = pathToFileURL(join(source, '..', 'caller.ts')).href;
    expect(await firstMessage(spawnSiblingWorker(caller, 'w', {}))).toBe('dist');
  });

  it('runs the source when any source, even another module, changed after the build', () => {
    const { root, source } = project(1_000_000, 2_000_000);
    utimesSync(join(root, 'src', 'b', 'other.ts'), 3_000_000, 3_000_000);
    expect(currentBuildOf(source)).toBeUndefined();
  });

  it('runs the source when a module was added after the build, or the module has no build', () => {
    const { root, source } = project(1_000_000, 2_000_000);
    writeFileSync(join(root, 'src', 'a', 'new.ts'), 'export {};\n');
    expect(currentBuildOf(source)).toBeUndefined();
    const lone = project(1_000_000, 2_000_000);
    expect(currentBuildOf(join(lone.root, 'src', 'a', 'none.ts'))).toBeUndefined();
    expect(currentBuildOf(join(lone.root, 'test', 'probe.ts'))).toBeUndefined();
  });

  it('ignores the studio’s own sources, which that build does not hold', () => {
    const { root, source, built } = project(1_000_000, 2_000_000);
    mkdirSync(join(root, 'src', 'web'));
    writeFileSync(join(root, 'src', 'web', 'app.tsx'), 'export {};\n');
    expect(currentBuildOf(source)).toBe(built);
  });
});
