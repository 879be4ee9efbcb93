/**
 * What every worker thread of ours needs (the compositor's, composite/parallel.ts; the PSD codec's,
 * io/psd-thread.ts), whether it runs from dist/ or from sources: starting one on a sibling module, and a full
 * garbage collection on demand.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { Worker, type WorkerOptions } from 'node:worker_threads';

/**
 * A worker on the module `name` beside `callerUrl` (the caller's `import.meta.url`): `name.js` in dist/; under
 * tsx or vitest (sources) the same module's build in dist/ when no source is newer than it, else `name.ts`,
 * loaded through tsx's ESM hooks registered inside the worker, since Node 20 does not apply `--import tsx` from a
 * worker's execArgv to the worker's entry module.
 */
export function spawnSiblingWorker(callerUrl: string, name: string, options: WorkerOptions): Worker {
  if (!callerUrl.endsWith('.ts')) return new Worker(new URL(`./${name}.js`, callerUrl), options);
  const entry = new URL(`./${name}.ts`, callerUrl).href;
  const built = currentBuildOf(fileURLToPath(entry));
  if (built) return new Worker(pathToFileURL(built), options);
  const req = createRequire(callerUrl);
  const pkgPath = req.resolve('tsx/package.json');
  const pkg = JSON.parse(readFileSync(pkgPath, 'utf8')) as {
    exports: Record<string, { import?: { default?: string } } | string>;
  };
  const api = pkg.exports['./esm/api'];
  const rel = typeof api === 'object' ? api.import?.default : undefined;
  if (!rel) throw new Error('tsx/esm/api not found');
  const apiUrl = pathToFileURL(join(dirname(pkgPath), rel)).href;
  // An eval'd worker is a CommonJS script; it registers tsx's hooks, then imports the TypeScript entry.
  const boot = `import(${JSON.stringify(apiUrl)}).then((m) => { m.register(); return import(${JSON.stringify(entry)}); });`;
  return new Worker(boot, { ...options, eval: true });
}

/**
 * The build in dist/ of a module under src/, if it exists and no file under src/ (the studio's own sources aside:
 * they are not in that build) was changed after it. A worker started through tsx compiles its modules first:
 * 1.2 s and 2.1 s of CPU for a session thread against 0.65 s and 1.0 s from the build, on a 2-core machine,
 * and the tests start one for every session they open. A source edited since the build is run as it is, through tsx.
 */
export function currentBuildOf(source: string): string | undefined {
  const parts = source.split(sep);
  const at = parts.lastIndexOf('src');
  if (at < 0) return undefined;
  const root = parts.slice(0, at).join(sep);
  const srcDir = join(root, 'src');
  const built = join(root, 'dist', relative(srcDir, source)).replace(/\.ts$/, '.js');
  if (!existsSync(built)) return undefined;
  const builtAt = statSync(built).mtimeMs;
  for (const file of readdirSync(srcDir, { recursive: true, encoding: 'utf8' })) {
    if (file === 'web' || file.startsWith(`web${sep}`)) continue;
    if (statSync(join(srcDir, file)).mtimeMs > builtAt) return undefined;
  }
  return built;
}

/**
 * `gc` without starting the process with --expose-gc: the flag is set just long enough to create one context
 * that has it (V8 flags are process-wide, so it is switched off again at once). A no-op where that fails.
 *
 * A worker needs it because V8 does not count SharedArrayBuffer memory towards its collection heuristics: an
 * idle worker's copies of posted documents would keep their layers (hundreds of MB each) alive indefinitely.
 */
export function garbageCollector(): () => void {
  try {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    setFlagsFromString('--no-expose-gc');
    return gc;
  } catch {
    return () => {};
  }
}
